//! The scheduler: the one loop that runs a task's ordinals in parallel lanes and feeds the
//! [`Consumer`] that decides.
//!
//! An ordinal is one trial of a task (consumed by the [`OrderedSampler`]), one run of a
//! suite (the same, with the suite's [`Cases`] beside it), or one pair of a `compare:` task
//! (both sides, launched together by [`super::pairs::PairLauncher`] and consumed by the
//! [`crate::pair_sampler::PairSampler`]). Ordinals are launched in order, up to `jobs` at a
//! time, but only as many as the rule could still need: graded ordinals still owed, minus
//! those running or finished but not yet consumed. Each attempt is emitted as a
//! [`RunEvent`] as it ends; attempt-1 outcomes go to the consumer, which consumes them in
//! ordinal order whatever order they finish in (invariant 2). Once the rule decides, the
//! ordinals still in flight are cancelled, recorded as cancelled, and not counted.
//!
//! The scheduler knows nothing about processes: a [`Launcher`] starts an ordinal (the real one
//! and the in-flight guard live in [`super::launcher`]; the unit tests below use a fake).
//! Whatever way the loop is left — a decision, an interrupt, an error from a sink (the
//! ledger could not be written), a panic — the in-flight guard cancels every ordinal still
//! running and has the launcher kill everything it started (invariant 9).

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use super::events::{EventSink, LlrView, RunEvent};
use super::launcher::{InFlight, Launcher};
use super::retry::TrialMsg;
use super::sys::Interrupt;
use crate::error::Error;
use crate::ledger::{AttemptRow, DecisionRow};
use crate::model::{Counts, Judgement, Outcome, Sampling, Shard, Verdict};
use crate::plan::Task;
use crate::rule::Decision;
use crate::sampler::{OrderedSampler, Sampler};

/// What the scheduler needs to know about a task.
#[derive(Debug, Clone)]
pub struct TaskConfig {
    /// Task id.
    pub id: String,
    /// The rule.
    pub sampling: Sampling,
    /// Unavailable trials tolerated.
    pub max_unavailable: u64,
    /// Parallel ordinals (for a compare task, pairs).
    pub jobs: usize,
    /// This run's shard, if any.
    pub shard: Option<Shard>,
    /// The ordinals of the one stage this run runs (`--stage`), first and last: no trial
    /// outside it is launched, and an unavailable trial is not replaced inside it (a later
    /// stage makes up for it).
    pub window: Option<(u64, u64)>,
}

impl TaskConfig {
    /// The scheduling of `task` with `jobs` lanes, as shard `shard` if any.
    pub fn new(task: &Task, jobs: usize, shard: Option<Shard>) -> Self {
        TaskConfig {
            id: task.id.clone(),
            sampling: task.sampling.clone(),
            max_unavailable: task.max_unavailable,
            jobs,
            shard,
            window: None,
        }
    }

    /// The same scheduling limited to stage `stage` of the task's staged rule (no change
    /// without a stage, or for a rule that is not staged).
    pub fn in_stage(mut self, stage: Option<u64>) -> Self {
        if let (Some(s), Some(b)) = (stage, self.sampling.stage_length()) {
            let first = (s - 1).saturating_mul(b).saturating_add(1);
            self.window = Some((first, s.saturating_mul(b)));
        }
        self
    }

    /// Graded ordinals this run (or shard) may grade at most, of the `max` the rule may
    /// need ([`Consumer::max_graded`]).
    fn graded_budget(&self, max: u64) -> u64 {
        if let Some((first, last)) = self.window {
            // Every owned ordinal of the stage, whatever it turns out to be.
            let owned_to = |o: u64| match self.shard {
                None => o,
                Some(s) if o >= s.k => (o - s.k) / s.m + 1,
                Some(_) => 0,
            };
            return owned_to(last) - owned_to(first - 1);
        }
        match self.shard {
            None => max,
            // Ordinals k, k + m, k + 2m, … up to max.
            Some(s) if max >= s.k => (max - s.k) / s.m + 1,
            Some(_) => 0,
        }
    }

    fn owns(&self, ordinal: u64) -> bool {
        self.shard.is_none_or(|s| s.owns(ordinal))
            && self
                .window
                .is_none_or(|(first, last)| (first..=last).contains(&ordinal))
    }
}

/// What an earlier (interrupted) session of the same ledger already did for a task.
#[derive(Debug, Default, Clone)]
pub struct TaskHistory {
    /// The task has a decision row: nothing to do.
    pub decided: bool,
    /// Attempt-1 outcome of each recorded trial: its finished outcome if it has one,
    /// otherwise `Cancelled`.
    pub outcomes: BTreeMap<u64, Outcome>,
}

/// How a task's run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TaskEnd {
    /// A decision row with a verdict was emitted.
    Decided,
    /// A harness error: a decision row without a verdict was emitted; the run stops.
    HarnessError,
    /// Interrupted before a decision: no decision row; the run stops.
    Interrupted,
}

/// What consumes a task's graded outcomes in ordinal order and decides, as the one loop
/// ([`run_task`], [`run_suite`], [`super::pairs::run_pairs`]) sees it: the ordered sampler of
/// a task or a suite's runs (one outcome per ordinal), or the pair sampler of a `compare:`
/// task (a pair's two sides per ordinal). The consumer also holds what an interrupted
/// session recorded, so resuming is its word too. Its budget (`max_graded`, the unavailable
/// budget) is the rule object's, never the loop's.
pub trait Consumer {
    /// Highest ordinal an earlier session recorded (0 for none).
    fn recorded(&self) -> u64;
    /// Offer what the earlier session recorded of `ordinal`; false when some of it was
    /// never graded (cancelled, or lost with no row), so the ordinal runs again, first, at
    /// its own ordinal (invariant 1: nothing graded is run again).
    fn resume(&mut self, ordinal: u64) -> bool;
    /// Offer an attempt-1 row of this run (one outcome, or one side of a pair).
    fn offer(&mut self, row: &AttemptRow);
    /// `ordinal` will report nothing more (its last attempt, or its thread ended without
    /// one): whatever part of it was never offered is over unfinished (a trial's one
    /// outcome is its attempt 1, so nothing else of it is waited for).
    fn over(&mut self, _ordinal: u64) {}
    /// `ordinal` was due to run again but never started: it counts as cancelled, as the
    /// replay counts it.
    fn cancel(&mut self, ordinal: u64) {
        self.over(ordinal);
    }
    /// Whether an ordinal stays pending until it is over ([`Consumer::over`]) rather than
    /// until its attempt 1 reports: a pair waits for both its sides.
    fn pending_until_over(&self) -> bool {
        false
    }
    /// The rule that decides (its tally, LLR and unavailable budget).
    fn rule(&self) -> &Sampler;
    /// The decision, once reached.
    fn decision(&self) -> Option<&Decision> {
        self.rule().decision()
    }
    /// Graded ordinals consumed (pairs: graded pairs, concordant or not).
    fn graded(&self) -> u64 {
        self.rule().tally().graded()
    }
    /// Graded ordinals the rule may need at most (pairs: `max_pairs`).
    fn max_graded(&self) -> u64 {
        self.rule().sampling().max_graded()
    }
    /// Offered ordinals waiting behind a lower one: (graded, unavailable).
    fn waiting(&self) -> (u64, u64);
    /// Counts for the decision row.
    fn counts(&self) -> Counts;
    /// How a harness error in `row` is named in the decision row.
    fn harness_error(&self, row: &AttemptRow) -> String {
        format!(
            "trial {} attempt {}: {}",
            row.trial,
            row.attempt,
            row.detail.reason.clone().unwrap_or_default()
        )
    }
    /// The rule the ordinals are scheduled by changed (a suite's family design, read from
    /// its first run): start over on `rule` from what was offered so far.
    fn reschedule(&mut self, rule: Sampling) -> Result<(), crate::stats::StatsError>;
}

/// The ordered sampler of a task or of a suite's runs, with what an earlier session
/// recorded and what this one offered (to start over on a suite's family rule).
struct Ordered {
    sampler: OrderedSampler,
    max_unavailable: u64,
    shard: Option<Shard>,
    history: BTreeMap<u64, Outcome>,
    offered: Vec<(u64, Outcome)>,
}

impl Ordered {
    fn new(cfg: &TaskConfig, history: TaskHistory) -> Result<Self, Error> {
        // A stage's sampler consumes in ordinal order from trial 1 as the replay of its
        // ledger alone will (a gap stops a sequential rule): it sees the first stage end only
        // when it runs stage 1 whole, and otherwise counts nothing it cannot know in order. A
        // single plan in a staged run (stage 1) is a shard of a single plan, counted as one.
        let sequential = matches!(cfg.sampling, Sampling::Sequential { .. });
        let shard = if cfg.window.is_some() && sequential {
            None
        } else {
            cfg.shard
        };
        let sampler = OrderedSampler::new(cfg.sampling.clone(), cfg.max_unavailable, shard)
            .map_err(|e| Error::Harness(format!("task `{}`: {e}", cfg.id)))?;
        Ok(Ordered {
            sampler,
            max_unavailable: cfg.max_unavailable,
            shard,
            history: history.outcomes,
            offered: Vec::new(),
        })
    }

    fn offer_outcome(&mut self, ordinal: u64, outcome: Outcome) {
        self.sampler.offer(ordinal, outcome);
        self.offered.push((ordinal, outcome));
    }
}

impl Consumer for Ordered {
    fn recorded(&self) -> u64 {
        self.history.keys().next_back().copied().unwrap_or(0)
    }
    fn resume(&mut self, ordinal: u64) -> bool {
        match self.history.get(&ordinal) {
            Some(&o) if o != Outcome::Cancelled => {
                self.offer_outcome(ordinal, o);
                true
            }
            _ => false,
        }
    }
    fn offer(&mut self, row: &AttemptRow) {
        self.offer_outcome(row.trial, row.outcome);
    }
    fn cancel(&mut self, ordinal: u64) {
        self.sampler.offer(ordinal, Outcome::Cancelled);
    }
    fn rule(&self) -> &Sampler {
        self.sampler.rule()
    }
    fn waiting(&self) -> (u64, u64) {
        self.sampler.waiting()
    }
    fn counts(&self) -> Counts {
        self.sampler.counts()
    }
    fn reschedule(&mut self, rule: Sampling) -> Result<(), crate::stats::StatsError> {
        self.sampler = OrderedSampler::new(rule, self.max_unavailable, self.shard)?;
        for &(ordinal, o) in &self.offered {
            self.sampler.offer(ordinal, o);
        }
        Ok(())
    }
}

/// Lanes of one task: what runs, what is owed, what waits.
struct Lanes<'a, L: Launcher + ?Sized> {
    in_flight: InFlight<'a, L>,
    /// Ordinals launched (or due for a re-run) not yet reported: whose attempt 1 has not
    /// reported, or (pairs) that are not over.
    first_pending: BTreeSet<u64>,
    /// Ordinals of an interrupted session that never got a grade: launched again first.
    rerun: VecDeque<u64>,
    /// The next new ordinal to launch.
    next_ordinal: u64,
}

/// Run one task to its decision (or to an interrupt or a harness error), emitting every
/// attempt and the decision to `sink`.
pub fn run_task<L: Launcher + ?Sized>(
    cfg: &TaskConfig,
    launcher: &L,
    history: TaskHistory,
    interrupt: &Interrupt,
    sink: &mut dyn EventSink,
) -> Result<TaskEnd, Error> {
    let mut sampler = Ordered::new(cfg, history)?;
    drive(cfg, launcher, &mut sampler, None, interrupt, sink)
}

/// The test cases of a suite task, each judged by its own ordered sampler: the scheduler
/// hands them the test-case rows each suite run sends (rows of tasks other than the suite's
/// own), and keeps running the suite while any of them is undecided.
pub trait Cases {
    /// Take a test case's row; `Ok(false)` when the ledger already holds that test case's
    /// trial (a resumed run re-runs a suite run whose rows were partly written), so it is not
    /// written again and never re-graded (invariant 1); `Err` (why, a harness error) when
    /// the re-run's row would have judged the case otherwise than the kept one — a failure
    /// where a pass was kept (review 11, a06) — since the ledger cannot hold both and
    /// keeping the pass would hide a real failure.
    fn admit(&mut self, row: &AttemptRow) -> Result<bool, String>;
    /// Whether every test case seen so far has decided (false before the first run).
    fn all_decided(&self) -> bool;
    /// The rule the suite's runs are scheduled by once the cases' rule is known, when it is
    /// not the plan's (the family design: [`crate::plan::family`]).
    fn runs_rule(&self) -> Option<Sampling>;
    /// The decision rows once the suite runs are over: every test case's decision, or for
    /// an undecided one the INCONCLUSIVE `undecided` gives.
    fn decisions(&mut self, undecided: &Decision) -> Vec<DecisionRow>;
}

/// Run a suite task: each trial is one run of the suite (the suite's own row, task
/// `cfg.id`, whose outcome is `Pass` when the suite ran), followed on the same channel by
/// one row per test case. Trials are scheduled, cancelled, resumed and sharded exactly as
/// [`run_task`]'s, on the rule of [`crate::ledger::suite_runs_rule`] (never deciding before
/// its last trial); the run ends once `cases` have all decided. Then each test case's
/// decision row is emitted, and [`RunEvent::TaskEnded`] for the suite.
pub fn run_suite<L: Launcher + ?Sized>(
    cfg: &TaskConfig,
    launcher: &L,
    history: TaskHistory,
    cases: &mut dyn Cases,
    interrupt: &Interrupt,
    sink: &mut dyn EventSink,
) -> Result<TaskEnd, Error> {
    let mut sampler = Ordered::new(cfg, history)?;
    drive(cfg, launcher, &mut sampler, Some(cases), interrupt, sink)
}

/// The one run loop: launch `cfg`'s ordinals with `launcher`, feed `consumer` (and a
/// suite's `cases`), and emit every attempt and the decision to `sink`.
pub(super) fn drive<L: Launcher + ?Sized, C: Consumer>(
    cfg: &TaskConfig,
    launcher: &L,
    sampler: &mut C,
    mut cases: Option<&mut dyn Cases>,
    interrupt: &Interrupt,
    sink: &mut dyn EventSink,
) -> Result<TaskEnd, Error> {
    // A suite's runs are scheduled by its cases' rule, which the family design may replace
    // once the first run is read: then the runs' sampler starts over on the new rule from
    // the outcomes it was offered, and the budget with it.
    let mut cfg = std::borrow::Cow::Borrowed(cfg);
    let mut budget = cfg.graded_budget(sampler.max_graded());
    sink.event(&RunEvent::TaskStarted {
        task: cfg.id.clone(),
        planned: budget,
    })?;

    // What an interrupted session already recorded, in ordinal order. Ordinals that never
    // got a grade there — cancelled at the interrupt, or lost with no row in a crash — are
    // run again at the same ordinal, first: skipping them would drop exactly the slow trials
    // that were still running, the completion-order bias invariant 2 forbids. A cancelled
    // attempt was never graded, so this re-grades nothing (invariant 1).
    let (tx, rx) = mpsc::channel::<TrialMsg>();
    let mut lanes = Lanes {
        in_flight: InFlight::new(launcher),
        first_pending: BTreeSet::new(),
        rerun: VecDeque::new(),
        next_ordinal: (sampler.recorded() + 1).max(cfg.window.map_or(1, |w| w.0)),
    };
    for ordinal in (1..lanes.next_ordinal).filter(|&o| cfg.owns(o)) {
        if !sampler.resume(ordinal) {
            lanes.rerun.push_back(ordinal);
            lanes.first_pending.insert(ordinal);
        }
    }
    let llr = |s: &C| -> Option<LlrView> {
        s.rule()
            .llr()
            .zip(s.rule().llr_bounds())
            .map(|(l, (lo, hi))| (l, lo, hi))
    };
    let mut harness_error: Option<String> = None;
    // A suite run whose test-case rows conflict with the rows a resumed ledger kept
    // ([`Cases::admit`]), by trial: its own row (which follows its case rows) is recorded
    // as the harness error, so the ledger and every report say why.
    let mut conflicts: std::collections::HashMap<u64, String> = Default::default();
    let mut stopping = false;

    let cases_done = |c: &Option<&mut dyn Cases>| c.as_ref().is_some_and(|c| c.all_decided());
    loop {
        if let Some(rule) = cases.as_ref().and_then(|c| c.runs_rule())
            && rule != cfg.sampling
        {
            cfg.to_mut().sampling = rule.clone();
            sampler
                .reschedule(rule)
                .map_err(|e| Error::Harness(format!("task `{}`: {e}", cfg.id)))?;
            budget = cfg.graded_budget(sampler.max_graded());
        }
        let finished =
            sampler.decision().is_some() || sampler.graded() >= budget || cases_done(&cases);
        if (interrupt.requested() || finished || harness_error.is_some()) && !stopping {
            stopping = true;
            lanes.in_flight.cancel_all();
        }
        if !stopping {
            fill(&cfg, launcher, &mut lanes, sampler, budget, &tx);
        }
        if lanes.in_flight.flags.is_empty() {
            break;
        }
        launcher.tidy();
        let mut batch = match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(m) => vec![m],
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            // Unreachable while `tx` lives; leave through the guard rather than wait forever.
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        batch.extend(rx.try_iter());
        // Take in the whole batch — free slots, offer outcomes — then refill the slots, and
        // only then hand the rows to the sinks (the ledger writes each row; its syncer thread
        // syncs them), so writing a row never holds up the next trial. Rows are still emitted in arrival order.
        let mut rows = Vec::with_capacity(batch.len());
        for msg in batch {
            let (mut row, last) = match msg {
                TrialMsg::Done(trial) => {
                    lanes.in_flight.flags.remove(&trial);
                    lanes.first_pending.remove(&trial);
                    sampler.over(trial);
                    continue;
                }
                TrialMsg::Attempt { row, last } => {
                    if last {
                        lanes.in_flight.flags.remove(&row.trial);
                    }
                    (row, last)
                }
            };
            // A test case's row from a suite run: the case judges it, the ledger keeps it.
            if row.task != cfg.id {
                if let Some(c) = cases.as_deref_mut() {
                    match c.admit(&row) {
                        Ok(true) => {
                            let (tally, view) = (sampler.rule().tally(), llr(sampler));
                            rows.push((row, tally, view));
                        }
                        Ok(false) => {}
                        Err(why) => {
                            conflicts.entry(row.trial).or_insert(why);
                        }
                    }
                }
                continue;
            }
            if let Some(why) = conflicts.remove(&row.trial) {
                row.outcome = Outcome::HarnessError;
                row.fault = Some(crate::model::Fault::Harness);
                row.graded = false;
                row.detail.reason = Some(why);
            }
            if row.outcome == Outcome::HarnessError && harness_error.is_none() {
                harness_error = Some(sampler.harness_error(&row));
            }
            if row.attempt == 1 {
                if !sampler.pending_until_over() {
                    lanes.first_pending.remove(&row.trial);
                }
                sampler.offer(&row);
            }
            if last {
                lanes.first_pending.remove(&row.trial);
                sampler.over(row.trial);
            }
            let (tally, view) = (sampler.rule().tally(), llr(sampler));
            rows.push((row, tally, view));
        }
        let finished =
            sampler.decision().is_some() || sampler.graded() >= budget || cases_done(&cases);
        if !stopping && !finished && harness_error.is_none() && !interrupt.requested() {
            fill(&cfg, launcher, &mut lanes, sampler, budget, &tx);
        }
        for (row, tally, llr) in rows {
            sink.event(&RunEvent::Attempt { row, tally, llr })?;
        }
    }
    // Ordinals of an earlier session due for a re-run that never started stay cancelled, as
    // the replay counts them.
    for ordinal in std::mem::take(&mut lanes.rerun) {
        sampler.cancel(ordinal);
    }

    let counts = sampler.counts();
    let llr_now = sampler.rule().llr();
    // A conflict whose run row never came (the run was cut short) still stops the suite.
    if harness_error.is_none() {
        harness_error = conflicts.into_values().next();
    }
    if let Some(why) = harness_error {
        return emit_end(sink, &cfg.id, Err(why), counts, llr_now);
    }
    if let Some(c) = cases {
        if !c.all_decided() && interrupt.requested() {
            sink.event(&RunEvent::TaskInterrupted {
                task: cfg.id.clone(),
            })?;
            return Ok(TaskEnd::Interrupted);
        }
        let undecided = match cfg.shard {
            Some(s) => Decision {
                verdict: Verdict::Inconclusive,
                reason: format!(
                    "shard {}/{} ran its {} suite runs; the verdict needs every shard (`gate report`)",
                    s.k, s.m, budget
                ),
            },
            None => Decision {
                verdict: Verdict::Inconclusive,
                reason: "no decision was reached".to_string(),
            },
        };
        for row in c.decisions(&undecided) {
            let shown = row
                .verdict
                .verdict()
                .map_or("HARNESS ERROR", |v| v.as_str())
                .to_string();
            sink.event(&RunEvent::TaskDecided { row, shown })?;
        }
        sink.event(&RunEvent::TaskEnded {
            task: cfg.id.clone(),
            shown: format!("{} suite runs", sampler.rule().tally().graded()),
        })?;
        return Ok(TaskEnd::Decided);
    }
    let decision = match sampler.decision() {
        Some(d) => d.clone(),
        None if interrupt.requested() => {
            sink.event(&RunEvent::TaskInterrupted {
                task: cfg.id.clone(),
            })?;
            return Ok(TaskEnd::Interrupted);
        }
        None => match cfg.shard {
            _ if cfg.window.is_some() => Decision {
                verdict: Verdict::Inconclusive,
                reason: format!(
                    "stage {} (trials #{}–#{}){} ran; the verdict needs every stage so far (`gate report`)",
                    cfg.window.map_or(0, |(first, _)| first - 1)
                        / cfg.sampling.stage_length().unwrap_or(1).max(1)
                        + 1,
                    cfg.window.map_or(0, |w| w.0),
                    cfg.window.map_or(0, |w| w.1),
                    cfg.shard
                        .map(|s| format!(", shard {}/{},", s.k, s.m))
                        .unwrap_or_default()
                ),
            },
            Some(s) => Decision {
                verdict: Verdict::Inconclusive,
                reason: format!(
                    "shard {}/{} ran its {} trials; the verdict needs every shard (`gate report`)",
                    s.k, s.m, budget
                ),
            },
            None => Decision {
                verdict: Verdict::Inconclusive,
                reason: "no decision was reached".to_string(),
            },
        },
    };
    emit_end(sink, &cfg.id, Ok(decision), counts, llr_now)
}

/// Emit a task's decision row: its verdict with the reason, or (`Err(why)`) a harness error,
/// with the counts and the LLR at the end: the one place a task's end becomes its row.
fn emit_end(
    sink: &mut dyn EventSink,
    task: &str,
    end: Result<Decision, String>,
    counts: Counts,
    llr: Option<f64>,
) -> Result<TaskEnd, Error> {
    let (verdict, reason, shown, ended) = match end {
        Ok(d) => (
            Judgement::Verdict(d.verdict),
            d.reason,
            d.verdict.as_str().to_string(),
            TaskEnd::Decided,
        ),
        Err(why) => (
            Judgement::HarnessError,
            format!("harness error: {why}"),
            "HARNESS ERROR".to_string(),
            TaskEnd::HarnessError,
        ),
    };
    sink.event(&RunEvent::TaskDecided {
        shown,
        row: DecisionRow {
            task: task.to_string(),
            verdict,
            reason,
            counts,
            llr,
        },
    })?;
    Ok(ended)
}

/// Launch ordinals up to `jobs`, but only as many as the rule could still need: graded
/// ordinals still owed, minus those running or finished but not yet consumed. An unavailable
/// outcome (a void pair) does not reduce what is owed, so a replacement follows it.
fn fill<L: Launcher + ?Sized, C: Consumer>(
    cfg: &TaskConfig,
    launcher: &L,
    lanes: &mut Lanes<'_, L>,
    sampler: &C,
    budget: u64,
    tx: &mpsc::Sender<TrialMsg>,
) {
    let start = |lanes: &mut Lanes<'_, L>, ordinal: u64| {
        let cancel = Arc::new(AtomicBool::new(false));
        lanes.in_flight.flags.insert(ordinal, Arc::clone(&cancel));
        launcher.launch(ordinal, cancel, tx.clone());
    };
    // Re-runs first, whatever is owed: consumption is blocked on them.
    while lanes.in_flight.flags.len() < cfg.jobs
        && let Some(ordinal) = lanes.rerun.pop_front()
    {
        start(lanes, ordinal);
    }
    let owed = budget.saturating_sub(sampler.graded());
    while lanes.in_flight.flags.len() < cfg.jobs {
        let (waiting_graded, waiting_unavailable) = sampler.waiting();
        let pending = lanes.first_pending.len() as u64 + waiting_graded;
        // Unavailable trials that finished but wait behind a slow earlier ordinal free their
        // slots early; past the remaining budget, more trials cannot help (the task will be
        // INCONCLUSIVE once they are consumed), so stop launching.
        // A stage runs its own ordinals only, each once (its share of the evidence).
        let exhausted = cfg
            .window
            .is_some_and(|(_, last)| lanes.next_ordinal > last);
        let over_budget =
            cfg.window.is_none() && waiting_unavailable > sampler.rule().remaining_unavailable();
        if pending >= owed || over_budget || exhausted || beyond_stage_end(cfg, sampler, lanes) {
            break;
        }
        while !cfg.owns(lanes.next_ordinal) {
            lanes.next_ordinal += 1;
            if cfg
                .window
                .is_some_and(|(_, last)| lanes.next_ordinal > last)
            {
                return;
            }
        }
        let ordinal = lanes.next_ordinal;
        lanes.first_pending.insert(ordinal);
        lanes.next_ordinal += 1;
        start(lanes, ordinal);
    }
}

/// Whether a staged rule run whole (`--jobs J`, no `--stage`) would launch past the end of
/// the stage being filled: the rule decides only at stage ends, so a stage is what the lanes
/// run at once, and the next stage starts only once this one is consumed and undecided.
/// After the ordinals consumed, `B - graded % B` more graded trials reach the stage end; an
/// unavailable one among them is made up for once it is consumed.
fn beyond_stage_end<L: Launcher + ?Sized, C: Consumer>(
    cfg: &TaskConfig,
    sampler: &C,
    lanes: &Lanes<'_, L>,
) -> bool {
    let Some(b) = cfg
        .sampling
        .stage()
        .filter(|_| cfg.window.is_none() && cfg.shard.is_none())
    else {
        return false;
    };
    let c = sampler.counts();
    lanes.next_ordinal > c.run + c.cancelled + (b - (c.passed + c.failed) % b)
}

#[cfg(test)]
pub(super) mod tests {
    //! The scheduler against a fake launcher: no processes, outcomes and timings scripted.

    use std::collections::HashMap;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Instant;

    use super::*;
    use crate::ledger::now_rfc3339;
    use crate::model::{Counts, Fault};

    /// Trial `ordinal` finishes after `delay` with `outcome`, unless cancelled first.
    #[derive(Default)]
    struct Fake {
        script: HashMap<u64, (u64, Outcome)>,
        launched: Mutex<Vec<u64>>,
        flags: Mutex<Vec<(u64, Arc<AtomicBool>)>>,
        kills: AtomicUsize,
    }

    impl Fake {
        fn new(script: &[(u64, u64, Outcome)]) -> Self {
            Fake {
                script: script.iter().map(|&(o, ms, out)| (o, (ms, out))).collect(),
                ..Fake::default()
            }
        }
        /// Whether every trial other than `finished` was told to stop.
        fn others_cancelled(&self, finished: u64) -> bool {
            self.flags
                .lock()
                .unwrap()
                .iter()
                .filter(|(o, _)| *o != finished)
                .all(|(_, f)| f.load(Ordering::Relaxed))
        }
    }

    fn row(ordinal: u64, outcome: Outcome) -> AttemptRow {
        AttemptRow {
            fault: (outcome == Outcome::Cancelled).then_some(Fault::Cancelled),
            graded: matches!(outcome, Outcome::Pass | Outcome::Fail),
            ..AttemptRow::started("t".into(), ordinal, 1, now_rfc3339(), outcome)
        }
    }

    impl Launcher for Fake {
        fn launch(&self, ordinal: u64, cancel: Arc<AtomicBool>, tx: mpsc::Sender<TrialMsg>) {
            self.launched.lock().unwrap().push(ordinal);
            self.flags
                .lock()
                .unwrap()
                .push((ordinal, Arc::clone(&cancel)));
            // Unscripted trials pass at once.
            let (ms, outcome) = self
                .script
                .get(&ordinal)
                .copied()
                .unwrap_or((0, Outcome::Pass));
            std::thread::spawn(move || {
                let end = Instant::now() + Duration::from_millis(ms);
                let mut outcome = outcome;
                while Instant::now() < end {
                    if cancel.load(Ordering::Relaxed) {
                        outcome = Outcome::Cancelled;
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(2));
                }
                let _ = tx.send(TrialMsg::Attempt {
                    row: Box::new(row(ordinal, outcome)),
                    last: true,
                });
            });
        }

        fn kill_all(&self) {
            self.kills.fetch_add(1, Ordering::SeqCst);
        }
    }

    /// Records events; optionally fails (or panics) on the n-th attempt.
    #[derive(Default)]
    pub(in crate::runner) struct Sink {
        pub(in crate::runner) attempts: Vec<AttemptRow>,
        pub(in crate::runner) decision: Option<DecisionRow>,
        fail_at: Option<usize>,
        panic_at: Option<usize>,
    }

    impl EventSink for Sink {
        fn event(&mut self, event: &RunEvent) -> Result<(), Error> {
            match event {
                RunEvent::Attempt { row, .. } => {
                    self.attempts.push((**row).clone());
                    if self.panic_at == Some(self.attempts.len()) {
                        panic!("a sink bug");
                    }
                    if self.fail_at == Some(self.attempts.len()) {
                        return Err(Error::output(
                            "cannot write the ledger",
                            std::io::Error::from_raw_os_error(libc::ENOSPC),
                        ));
                    }
                }
                RunEvent::TaskDecided { row, .. } => self.decision = Some(row.clone()),
                _ => {}
            }
            Ok(())
        }
    }

    fn config(sampling: Sampling, jobs: usize) -> TaskConfig {
        TaskConfig {
            id: "t".into(),
            sampling,
            max_unavailable: 2,
            jobs,
            shard: None,
            window: None,
        }
    }

    /// Run `cfg` afresh (no history, no interrupt) on `fake`.
    fn fresh(cfg: &TaskConfig, fake: &Fake, sink: &mut Sink) -> Result<TaskEnd, Error> {
        run_task(cfg, fake, TaskHistory::default(), &Interrupt::none(), sink)
    }

    #[test]
    fn a_quick_failure_waits_for_the_slower_earlier_trial() {
        // Trial 2 fails at once, trial 1 passes later: the rule must see 1 before 2.
        let fake = Fake::new(&[(1, 80, Outcome::Pass), (2, 0, Outcome::Fail)]);
        let mut sink = Sink::default();
        let cfg = config(Sampling::Single { n: 2, c: 0 }, 2);
        let end = fresh(&cfg, &fake, &mut sink);
        assert_eq!(end.unwrap(), TaskEnd::Decided);
        let d = sink.decision.unwrap();
        assert_eq!(d.verdict, Judgement::Verdict(Verdict::Fail));
        assert_eq!((d.counts.passed, d.counts.failed), (1, 1));
        // Rows are emitted as they end: the failure first.
        assert_eq!(sink.attempts[0].trial, 2);
    }

    #[test]
    fn trials_in_flight_at_the_decision_are_cancelled_and_not_counted() {
        let fake = Fake::new(&[
            (1, 0, Outcome::Fail),
            (2, 60_000, Outcome::Pass),
            (3, 60_000, Outcome::Pass),
        ]);
        let mut sink = Sink::default();
        let cfg = config(Sampling::Single { n: 10, c: 0 }, 3);
        let started = Instant::now();
        fresh(&cfg, &fake, &mut sink).unwrap();
        assert!(started.elapsed() < Duration::from_secs(10));
        let d = sink.decision.unwrap();
        assert_eq!(d.verdict, Judgement::Verdict(Verdict::Fail));
        assert_eq!(
            d.counts,
            Counts {
                run: 1,
                passed: 0,
                failed: 1,
                unavailable: 0,
                cancelled: 2,
                excluded: 0
            }
        );
        // The normal way out cancels one by one: nothing is left to kill.
        assert_eq!(fake.kills.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn a_ledger_write_failure_cancels_and_kills_every_trial_in_flight() {
        let fake = Fake::new(&[
            (1, 0, Outcome::Pass),
            (2, 60_000, Outcome::Pass),
            (3, 60_000, Outcome::Pass),
        ]);
        let mut sink = Sink {
            fail_at: Some(1),
            ..Sink::default()
        };
        let cfg = config(Sampling::Single { n: 10, c: 0 }, 3);
        let err = fresh(&cfg, &fake, &mut sink).unwrap_err();
        assert_eq!(err.exit_code(), crate::exit::HARNESS);
        assert_eq!(fake.kills.load(Ordering::SeqCst), 1);
        assert!(fake.others_cancelled(1));
    }

    #[test]
    fn a_panic_in_the_run_loop_still_kills_every_trial_in_flight() {
        let fake = Fake::new(&[(1, 0, Outcome::Pass), (2, 60_000, Outcome::Pass)]);
        let mut sink = Sink {
            panic_at: Some(1),
            ..Sink::default()
        };
        let cfg = config(Sampling::Single { n: 10, c: 0 }, 2);
        let unwound = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            fresh(&cfg, &fake, &mut sink)
        }));
        assert!(unwound.is_err());
        assert_eq!(fake.kills.load(Ordering::SeqCst), 1);
        assert!(fake.others_cancelled(1));
    }

    #[test]
    fn an_interrupt_stops_launching_and_leaves_no_decision() {
        let fake = Fake::new(&[(1, 60_000, Outcome::Pass), (2, 60_000, Outcome::Pass)]);
        let interrupt = Interrupt::none();
        interrupt.request(libc::SIGINT);
        let mut sink = Sink::default();
        let cfg = config(Sampling::Single { n: 10, c: 0 }, 2);
        let end = run_task(&cfg, &fake, TaskHistory::default(), &interrupt, &mut sink).unwrap();
        assert_eq!(end, TaskEnd::Interrupted);
        assert!(sink.decision.is_none());
        assert!(fake.launched.lock().unwrap().is_empty());
        assert_eq!(interrupt.exit_code(), crate::exit::INTERRUPTED);
    }

    #[test]
    fn no_more_trials_launch_than_the_rule_can_still_need() {
        // Eight lanes, but a plan of three trials: never a fourth.
        let fake = Fake::new(&[]);
        let mut sink = Sink::default();
        let cfg = config(Sampling::Single { n: 3, c: 0 }, 8);
        fresh(&cfg, &fake, &mut sink).unwrap();
        assert_eq!(*fake.launched.lock().unwrap(), vec![1, 2, 3]);
        assert_eq!(
            sink.decision.unwrap().verdict,
            Judgement::Verdict(Verdict::Pass)
        );
    }

    #[test]
    fn an_unavailable_trial_draws_a_replacement() {
        let fake = Fake::new(&[(1, 0, Outcome::Unavailable)]);
        let mut sink = Sink::default();
        let cfg = config(Sampling::Single { n: 2, c: 0 }, 1);
        fresh(&cfg, &fake, &mut sink).unwrap();
        assert_eq!(*fake.launched.lock().unwrap(), vec![1, 2, 3]);
        let d = sink.decision.unwrap();
        assert_eq!((d.counts.passed, d.counts.unavailable), (2, 1));
    }

    #[test]
    fn resume_reruns_ungraded_ordinals_first_and_keeps_the_graded_ones() {
        let history = TaskHistory {
            decided: false,
            outcomes: [
                (1, Outcome::Pass),
                (2, Outcome::Cancelled),
                (3, Outcome::Fail),
            ]
            .into_iter()
            .collect(),
        };
        let fake = Fake::new(&[]);
        let mut sink = Sink::default();
        let cfg = config(Sampling::Single { n: 5, c: 1 }, 1);
        run_task(&cfg, &fake, history, &Interrupt::none(), &mut sink).unwrap();
        let launched = fake.launched.lock().unwrap().clone();
        assert_eq!(launched[0], 2);
        assert!(!launched.contains(&1) && !launched.contains(&3));
        let d = sink.decision.unwrap();
        assert_eq!(d.verdict, Judgement::Verdict(Verdict::Pass));
        assert_eq!((d.counts.passed, d.counts.failed), (4, 1));
    }
}
