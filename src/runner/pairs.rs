//! A `compare:` task's pairs (head and base, same ordinal), run by the one loop
//! ([`super::scheduler`]) and consumed by the ordered pair sampler.
//!
//! Each pair runs the task once on each side with the same `GATE_TRIAL` and
//! `GATE_SIDE=head|base`: [`PairLauncher`] launches both sides of an ordinal and reports
//! their attempts, each row tagged with its side and its position in the pair. With
//! `jobs >= 2` the two sides of a pair start together (so drift over time hits both), and
//! `jobs / 2` pairs run at once; with `jobs = 1` the sides run one after the other, in an
//! order drawn per pair from the seed recorded in the ledger header
//! ([`crate::pair_sampler::base_first`]) and recorded on each row (`pair_position`). The loop
//! launches pairs in ordinal order, only as many as the rule could still need, and the
//! [`PairSampler`] consumes them in pair order (invariant 2); at the decision, sides still
//! running are cancelled and recorded as such. A resumed run runs again only the sides an
//! interrupted session never graded, at their own pair ordinal (invariant 1).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError, mpsc};

use super::events::EventSink;
use super::launcher::{Launcher, harness_error_row};
use super::retry::TrialMsg;
use super::sandbox::Sandbox;
use super::scheduler::{Consumer, TaskConfig, TaskEnd, drive};
use super::sys::Interrupt;
use crate::error::Error;
use crate::ledger::{AttemptRow, Ledger};
use crate::model::{Counts, Outcome, Sampling};
use crate::pair_sampler::{CompareRecord, PairSampler, Side, base_first};
use crate::plan::compare_rule::CompareTask;
use crate::plan::{Policy, Task};
use crate::rule::Decision;
use crate::runner::launcher::ProcessLauncher;
use crate::runner::redact::Redactor;
use crate::sampler::Sampler;

/// The seed of a task's within-pair order: the first 8 bytes of SHA-256 over the run id and
/// the task id, so a resumed run (same run id) draws the same orders, and two runs differ.
pub fn order_seed(run_id: &str, task: &str) -> u64 {
    let hex = crate::ledger::sha256_hex(format!("{run_id}\0{task}").as_bytes());
    u64::from_str_radix(&hex[..16], 16).unwrap_or(0)
}

/// The sides of pair `pair` in the order they run with `jobs = 1` (and are numbered).
pub(super) fn order(seed: u64, pair: u64) -> [Side; 2] {
    if base_first(seed, pair) {
        [Side::Base, Side::Head]
    } else {
        [Side::Head, Side::Base]
    }
}

/// The header's record of a compare task (commands redacted).
pub fn record(c: &CompareTask, task: &str, run_id: &str, redactor: &Redactor) -> CompareRecord {
    CompareRecord {
        odds_ratio: c.rule.odds_ratio,
        alpha: c.rule.alpha,
        beta: c.rule.beta,
        max_pairs: c.rule.max_pairs,
        rates: c.rule.rates,
        order_seed: order_seed(run_id, task),
        base_run: redactor.apply(&c.base.run.display()),
        base_check: c.base.check.as_ref().map(|l| redactor.apply(&l.display())),
        base_cwd: c.base.cwd_as_written.clone(),
        drop: Some(c.rule.drop),
        loss_route: c.rule.loss_route,
    }
}

/// Run the compare task `task` of a plan with the real launchers: head as the task is
/// written, base from its `base:` side; `GATE_SIDE` set on each; base's logs and result files
/// under `run_dir/base` so they never collide with head's.
#[allow(clippy::too_many_arguments)]
pub fn run_compare_task(
    task: &Task,
    policy: &Policy,
    run_id: &str,
    run_dir: &Path,
    redactor: &Redactor,
    sandbox: &Arc<Sandbox>,
    history: PairHistory,
    interrupt: &Interrupt,
    sink: &mut dyn EventSink,
) -> Result<TaskEnd, Error> {
    let Some(compare) = task.compare() else {
        return Err(Error::Harness(format!(
            "task `{}` is not a compare task",
            task.id
        )));
    };
    let [head, base] = side_launchers((task, compare, policy, run_id), run_dir, redactor, sandbox);
    let rule = PairSampler::new(
        task.sampling.clone(),
        task.max_unavailable,
        compare.rule.max_pairs,
        compare.rule.loss_route,
    )
    .map_err(|e| Error::Harness(format!("task `{}`: {e}", task.id)))?;
    let seed = order_seed(run_id, &task.id);
    run_pairs(
        &task.id,
        rule,
        (head, base),
        policy.jobs,
        seed,
        history,
        interrupt,
        sink,
    )
}

/// The launchers of a compare task's two sides, head then base: head as the task is written,
/// base from its `base:` side (command, check, folder, environment and the redaction of its
/// values), each with `GATE_SIDE` set; base's logs and result files under `run_dir/base`.
pub(super) fn side_launchers(
    (task, compare, policy, run_id): (&Task, &CompareTask, &Policy, &str),
    run_dir: &Path,
    redactor: &Redactor,
    sandbox: &Arc<Sandbox>,
) -> [ProcessLauncher; 2] {
    let base_env = compare
        .base
        .env
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()));
    let base_dir = run_dir.join("base");
    let sides = [
        (Side::Head, run_dir, redactor.clone(), &task.env),
        (
            Side::Base,
            &base_dir,
            redactor.with_env(base_env),
            &compare.base.env,
        ),
    ];
    let [head, mut base] = sides.map(|(side, dir, redactor, env)| {
        let mut l = ProcessLauncher::new(task, policy, run_id, dir, redactor);
        l.spec.sandbox = Some(Arc::clone(sandbox));
        let env = env.iter().filter(|(k, _)| k != "GATE_SIDE").cloned();
        let side = ("GATE_SIDE".to_string(), side.as_str().to_string());
        l.spec.env = env.chain([side]).collect();
        l
    });
    base.spec.run = compare.base.run.clone();
    base.spec.check = compare.base.check.clone();
    base.spec.cwd = compare.base.cwd.clone();
    base.spec.writes = (task.writes.is_some()).then(|| task.write_roots(&compare.base.cwd));
    [head, base]
}

/// What an interrupted session already recorded: each side's attempt-1 outcome by pair (a
/// finished outcome if it has one, otherwise `Cancelled`), and whether the task is decided.
#[derive(Debug, Default, Clone)]
pub struct PairHistory {
    /// The task has a decision row.
    pub decided: bool,
    /// Attempt-1 outcomes by (pair, side).
    pub outcomes: BTreeMap<(u64, Side), Outcome>,
}

impl PairHistory {
    /// The sides graded: a re-run runs only the others.
    pub fn graded_sides(&self) -> HashSet<(u64, Side)> {
        let graded = self
            .outcomes
            .iter()
            .filter(|(_, o)| **o != Outcome::Cancelled);
        graded.map(|(k, _)| *k).collect()
    }
}

/// The history of `task` in `ledger`.
pub fn pair_history(ledger: &Ledger, task: &str) -> PairHistory {
    let decided = ledger.decisions().any(|d| d.task == task);
    let mut outcomes = BTreeMap::new();
    for a in ledger
        .attempts()
        .filter(|a| a.task == task && a.attempt == 1)
    {
        let Some(side) = a.side else { continue };
        let slot = outcomes.entry((a.trial, side)).or_insert(a.outcome);
        if *slot == Outcome::Cancelled {
            *slot = a.outcome;
        }
    }
    PairHistory { decided, outcomes }
}

/// Run one compare task to its decision (or to an interrupt or a harness error) on the one
/// loop, emitting every attempt (with its side and position in the pair) and the decision to
/// `sink`: `jobs` sides at once (`jobs / 2` pairs, both sides together, when >= 2), the
/// within-pair order from `seed`.
#[allow(clippy::too_many_arguments)]
pub fn run_pairs<L: Launcher + Send + Sync + 'static>(
    task: &str,
    rule: PairSampler,
    (head, base): (L, L),
    jobs: usize,
    seed: u64,
    history: PairHistory,
    interrupt: &Interrupt,
    sink: &mut dyn EventSink,
) -> Result<TaskEnd, Error> {
    let cfg = TaskConfig {
        id: task.to_string(),
        sampling: rule.rule().sampling().clone(),
        // The void budget and `max_pairs` are the pair sampler's.
        max_unavailable: 0,
        jobs: (jobs / 2).max(1),
        shard: None,
        window: None,
    };
    let launcher = PairLauncher {
        sides: Arc::new([head, base]),
        task: task.to_string(),
        together: jobs >= 2,
        seed,
        done: Arc::new(history.graded_sides()),
        interrupt: interrupt.clone(),
    };
    let mut pairs = Pairs {
        sampler: rule,
        seed,
        history: history.outcomes,
    };
    drive(&cfg, &launcher, &mut pairs, None, interrupt, sink)
}

/// Launches both sides of a pair (those an interrupted session did not grade), each on its
/// side's launcher with the pair's cancel flag, and relays their attempts to the loop tagged
/// with side and position; the pair's last message is the last of its last side.
pub struct PairLauncher<L> {
    /// Head's launcher and base's (indexed by [`Side`]).
    sides: Arc<[L; 2]>,
    task: String,
    /// Both sides at once (`jobs >= 2`), else one after the other in the seeded order.
    together: bool,
    /// The within-pair order's seed, as the ledger header records it.
    seed: u64,
    /// Sides an interrupted session graded: not run again.
    done: Arc<HashSet<(u64, Side)>>,
    interrupt: Interrupt,
}

/// One pair's sides in flight, shared by the threads relaying them.
struct PairRelay<L> {
    sides: Arc<[L; 2]>,
    pair: u64,
    cancel: Arc<AtomicBool>,
    tx: mpsc::Sender<TrialMsg>,
    /// Sides not over yet; the one that brings it to 0 sends the pair's last message.
    left: Mutex<usize>,
    /// Sides run one after the other: the next starts only while the loop would still
    /// launch (not once the pair is cancelled, a harness error came, or the run is
    /// interrupted); the sides not started never are.
    one_by_one: bool,
    interrupt: Interrupt,
}

impl<L: Launcher> PairRelay<L> {
    /// Run side `side` (at `position` in the pair) and relay its attempts; returns whether
    /// the pair is over.
    fn side(&self, side: Side, position: u8) -> bool {
        let (side_tx, side_rx) = mpsc::channel();
        self.sides[side as usize].launch(self.pair, Arc::clone(&self.cancel), side_tx);
        for msg in side_rx {
            match msg {
                TrialMsg::Attempt { mut row, last } => {
                    if self.one_by_one && row.outcome == Outcome::HarnessError {
                        // The loop stops at a harness error: no later side of the pair.
                        self.cancel.store(true, Ordering::Relaxed);
                    }
                    row.side = Some(side);
                    row.pair_position = Some(position);
                    if last {
                        return self.sides_over(1, Some(row));
                    }
                    let _ = self.tx.send(TrialMsg::Attempt { row, last: false });
                }
                TrialMsg::Done(_) => return self.sides_over(1, None),
            }
        }
        // Every sender dropped without a last message: the side is over all the same.
        self.sides_over(1, None)
    }

    /// `n` sides are over, with the last row if one was sent: relay it, marked last when
    /// the pair is over (under the lock, so the pair's last message is the last sent).
    fn sides_over(&self, n: usize, row: Option<Box<AttemptRow>>) -> bool {
        let mut left = self.left.lock().unwrap_or_else(PoisonError::into_inner);
        *left = left.saturating_sub(n);
        if self.one_by_one && (self.cancel.load(Ordering::Relaxed) || self.interrupt.requested()) {
            *left = 0;
        }
        let over = *left == 0;
        let msg = match row {
            Some(row) => TrialMsg::Attempt { row, last: over },
            None if over => TrialMsg::Done(self.pair),
            None => return false,
        };
        let _ = self.tx.send(msg);
        over
    }
}

impl<L: Launcher + Send + Sync + 'static> Launcher for PairLauncher<L> {
    fn launch(&self, pair: u64, cancel: Arc<AtomicBool>, tx: mpsc::Sender<TrialMsg>) {
        let sides: Vec<Side> = order(self.seed, pair)
            .into_iter()
            .filter(|s| !self.done.contains(&(pair, *s)))
            .collect();
        if sides.is_empty() {
            // Never launched (a pair graded whole is resumed, not run), but never left waiting.
            let _ = tx.send(TrialMsg::Done(pair));
            return;
        }
        // Where each side stands in its pair: after a side the earlier session graded.
        let first = 3 - sides.len() as u8;
        let relay = Arc::new(PairRelay {
            sides: Arc::clone(&self.sides),
            pair,
            cancel,
            tx,
            left: Mutex::new(sides.len()),
            one_by_one: !self.together,
            interrupt: self.interrupt.clone(),
        });
        let numbered: Vec<(Side, u8)> = sides.into_iter().zip(first..).collect();
        let groups: Vec<Vec<(Side, u8)>> = if self.together {
            numbered.into_iter().map(|s| vec![s]).collect()
        } else {
            vec![numbered]
        };
        for group in groups {
            let (relay_here, sides) = (Arc::clone(&relay), group.len());
            let started = std::thread::Builder::new()
                .name("gate-pair-side".into())
                .spawn(move || {
                    for &(side, position) in &group {
                        if relay_here.side(side, position) {
                            break;
                        }
                    }
                });
            if let Err(e) = started {
                // No thread to be had: these sides never ran, a harness error (exit 4).
                let why = format!("cannot start a thread for the pair: {e}");
                let row = harness_error_row(&self.task, pair, 1, why);
                relay.sides_over(sides, Some(Box::new(row)));
            }
        }
    }

    fn kill_all(&self) {
        self.sides.iter().for_each(L::kill_all);
    }

    fn tidy(&self) {
        self.sides[Side::Head as usize].tidy();
    }
}

/// The pair sampler of a compare task, with what an earlier session recorded.
struct Pairs {
    sampler: PairSampler,
    seed: u64,
    history: BTreeMap<(u64, Side), Outcome>,
}

impl Consumer for Pairs {
    fn recorded(&self) -> u64 {
        self.history.keys().next_back().map_or(0, |(p, _)| *p)
    }
    fn resume(&mut self, pair: u64) -> bool {
        let mut whole = true;
        for side in order(self.seed, pair) {
            match self.history.get(&(pair, side)) {
                Some(&o) if o != Outcome::Cancelled => {
                    self.sampler.offer(pair, side, o);
                }
                _ => whole = false,
            }
        }
        whole
    }
    fn offer(&mut self, row: &AttemptRow) {
        if let Some(side) = row.side {
            self.sampler.offer(row.trial, side, row.outcome);
        }
    }
    // A side that never reported (never started once the pair was cancelled, or its thread
    // ended without its last attempt) is cancelled, and so is its pair; a side offered
    // already is not offered again.
    fn over(&mut self, pair: u64) {
        for side in [Side::Head, Side::Base] {
            self.sampler.offer(pair, side, Outcome::Cancelled);
        }
    }
    fn pending_until_over(&self) -> bool {
        true
    }
    fn rule(&self) -> &Sampler {
        self.sampler.rule()
    }
    fn decision(&self) -> Option<&Decision> {
        self.sampler.decision()
    }
    fn graded(&self) -> u64 {
        self.sampler.pair_counts().total
    }
    fn max_graded(&self) -> u64 {
        self.sampler.max_pairs()
    }
    fn waiting(&self) -> (u64, u64) {
        self.sampler.waiting()
    }
    fn counts(&self) -> Counts {
        self.sampler.counts()
    }
    fn harness_error(&self, row: &AttemptRow) -> String {
        format!(
            "pair {} ({} side) attempt {}: {}",
            row.trial,
            row.side.map_or("?", Side::as_str),
            row.attempt,
            row.detail.reason.clone().unwrap_or_default()
        )
    }
    // A compare task has no test cases, so its rule never changes under it.
    fn reschedule(&mut self, _rule: Sampling) -> Result<(), crate::stats::StatsError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! The pair scheduler against fake launchers: no processes, outcomes scripted by side.

    use std::collections::{BTreeSet, HashMap};

    use super::*;
    use crate::ledger::now_rfc3339;
    use crate::model::{Judgement, SequentialRule, Verdict};
    use crate::runner::scheduler::tests::Sink;

    struct Fake {
        script: HashMap<u64, Outcome>,
        launched: Arc<Mutex<Vec<(u64, Side)>>>,
        side: Side,
    }

    impl Launcher for Fake {
        fn launch(&self, ordinal: u64, _cancel: Arc<AtomicBool>, tx: mpsc::Sender<TrialMsg>) {
            self.launched.lock().unwrap().push((ordinal, self.side));
            let outcome = self.script.get(&ordinal).copied().unwrap_or(Outcome::Pass);
            let row = AttemptRow {
                graded: matches!(outcome, Outcome::Pass | Outcome::Fail),
                ..AttemptRow::started("t".into(), ordinal, 1, now_rfc3339(), outcome)
            };
            let _ = tx.send(TrialMsg::Attempt {
                row: Box::new(row),
                last: true,
            });
        }
        fn kill_all(&self) {}
    }

    /// Run the pairs of `h` and `b` on `jobs` sides, seed 9.
    fn run(jobs: usize, (h, b): (Fake, Fake), history: PairHistory, sink: &mut Sink) -> TaskEnd {
        let sampling = Sampling::Sequential {
            healthy: 0.5,
            regressed: 0.25,
            alpha: 0.05,
            beta: 0.1,
            max_trials: 60,
            rule: SequentialRule::Wald,
        };
        let rule = PairSampler::new(sampling, 3, 60, None).unwrap();
        run_pairs(
            "t",
            rule,
            (h, b),
            jobs,
            9,
            history,
            &Interrupt::none(),
            sink,
        )
        .unwrap()
    }

    type Launched = Arc<Mutex<Vec<(u64, Side)>>>;

    fn fakes(head_fails: bool) -> (Fake, Fake, Launched) {
        let launched = Arc::new(Mutex::new(Vec::new()));
        let fail_every = |side_fails: bool| {
            (1..=200)
                .map(|p| {
                    let fail = side_fails && p % 2 == 0 || !side_fails && p % 7 == 0;
                    (p, if fail { Outcome::Fail } else { Outcome::Pass })
                })
                .collect()
        };
        (
            Fake {
                script: fail_every(head_fails),
                launched: Arc::clone(&launched),
                side: Side::Head,
            },
            Fake {
                script: fail_every(false),
                launched: Arc::clone(&launched),
                side: Side::Base,
            },
            launched,
        )
    }

    #[test]
    fn a_head_that_fails_half_its_pairs_against_a_healthy_base_fails() {
        for jobs in [1, 4] {
            let (h, b, launched) = fakes(true);
            let mut sink = Sink::default();
            let end = run(jobs, (h, b), PairHistory::default(), &mut sink);
            assert_eq!(end, TaskEnd::Decided);
            let d = sink.decision.unwrap();
            assert_eq!(
                d.verdict,
                Judgement::Verdict(Verdict::Fail),
                "jobs {jobs}: {}",
                d.reason
            );
            // Every row carries its side and its position in the pair; both sides of a pair
            // were started.
            assert!(sink.attempts.iter().all(|a| a.side.is_some()));
            assert!(sink.attempts.iter().all(|a| a.pair_position.is_some()));
            let launched = launched.lock().unwrap();
            for pair in 1..=d.counts.run {
                assert!(launched.contains(&(pair, Side::Head)));
                assert!(launched.contains(&(pair, Side::Base)));
            }
        }
    }

    #[test]
    fn with_one_job_the_sides_run_in_the_seeded_order() {
        let (h, b, launched) = fakes(false);
        let mut sink = Sink::default();
        run(1, (h, b), PairHistory::default(), &mut sink);
        let launched = launched.lock().unwrap();
        for pair in launched.iter().map(|(p, _)| *p).collect::<BTreeSet<_>>() {
            let first = launched.iter().find(|(p, _)| *p == pair).unwrap().1;
            let want = if base_first(9, pair) {
                Side::Base
            } else {
                Side::Head
            };
            assert_eq!(first, want, "pair {pair}");
        }
    }

    #[test]
    fn every_row_carries_its_side_and_its_place_in_the_order_its_pair_ran() {
        for jobs in [1, 4] {
            let (h, b, _) = fakes(true);
            let mut sink = Sink::default();
            run(jobs, (h, b), PairHistory::default(), &mut sink);
            for a in &sink.attempts {
                let first = order(9, a.trial)[0];
                let want = if a.side == Some(first) { 1 } else { 2 };
                assert_eq!(a.pair_position, Some(want), "jobs {jobs}, pair {}", a.trial);
            }
        }
    }

    #[test]
    fn with_one_job_a_harness_error_on_a_pairs_first_side_never_starts_its_second() {
        let (mut h, mut b, launched) = fakes(false);
        for side in [&mut h, &mut b] {
            side.script.insert(1, Outcome::HarnessError);
        }
        let mut sink = Sink::default();
        assert_eq!(
            run(1, (h, b), PairHistory::default(), &mut sink),
            TaskEnd::HarnessError
        );
        assert_eq!(*launched.lock().unwrap(), vec![(1, order(9, 1)[0])]);
    }

    #[test]
    fn resume_runs_again_only_the_side_never_graded() {
        let mut history = PairHistory::default();
        history.outcomes.insert((1, Side::Head), Outcome::Pass);
        history.outcomes.insert((1, Side::Base), Outcome::Cancelled);
        history.outcomes.insert((2, Side::Head), Outcome::Fail);
        history.outcomes.insert((2, Side::Base), Outcome::Pass);
        let (h, b, launched) = fakes(false);
        let mut sink = Sink::default();
        run(1, (h, b), history, &mut sink);
        let launched = launched.lock().unwrap();
        assert_eq!(launched[0], (1, Side::Base));
        assert!(!launched.contains(&(1, Side::Head)));
        assert!(!launched.contains(&(2, Side::Head)) && !launched.contains(&(2, Side::Base)));
        assert!(launched.contains(&(3, Side::Head)));
    }
}
