//! The pair scheduler: runs a `compare:` task's pairs (head and base, same ordinal) and feeds
//! the ordered pair sampler.
//!
//! Each pair runs the task once on each side with the same `GATE_TRIAL` and
//! `GATE_SIDE=head|base`. With `jobs >= 2` the two sides of a pair start together (so drift
//! over time hits both), and `jobs / 2` pairs run at once; with `jobs = 1` the sides run one
//! after the other, in an order drawn per pair from the seed recorded in the ledger header
//! ([`crate::pairs::base_first`]) and recorded on each row (`pair_position`). Pairs are
//! launched in ordinal order, only as many as the rule could still need, and consumed by
//! [`PairSampler`] in pair order (invariant 2); at the decision, sides still running are
//! cancelled and recorded as such. A resumed run runs again only the sides an interrupted
//! session never graded, at their own pair ordinal (invariant 1).
//!
//! Whatever way [`run_pairs`] is left, the in-flight guard cancels every side still running
//! and has both launchers kill everything they started.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, mpsc};
use std::time::Duration;

use super::events::{EventSink, RunEvent};
use super::launcher::{InFlight, Launcher};
use super::retry::TrialMsg;
use super::sandbox::Sandbox;
use super::scheduler::{TaskEnd, emit_end};
use super::sys::Interrupt;
use crate::error::Error;
use crate::ledger::{Ledger, Outcome};
use crate::pairs::{CompareRecord, PairSampler, Side, base_first};
use crate::plan::compare::CompareTask;
use crate::plan::{Policy, Task};
use crate::runner::redact::Redactor;
use crate::runner::scheduler::ProcessLauncher;
use crate::sampler::{Decision, Sampling, Verdict};
use std::path::Path;

/// What the pair scheduler needs to know about a compare task.
#[derive(Debug, Clone)]
pub struct PairConfig {
    /// Task id.
    pub id: String,
    /// The rule on the discordant pairs.
    pub sampling: Sampling,
    /// Void pairs tolerated.
    pub max_unavailable: u64,
    /// Pairs after which the task is INCONCLUSIVE.
    pub max_pairs: u64,
    /// Parallel sides (`--jobs`): `jobs / 2` pairs at once, both sides together, when >= 2.
    pub jobs: usize,
    /// The within-pair order's seed, as the ledger header records it.
    pub order_seed: u64,
    /// The loss route beside the discordant rule, as the ledger header records it.
    pub loss_route: Option<crate::stats::loss_route::LossRoute>,
}

/// The seed of a task's within-pair order: the first 8 bytes of SHA-256 over the run id and
/// the task id, so a resumed run (same run id) draws the same orders, and two runs differ.
pub fn order_seed(run_id: &str, task: &str) -> u64 {
    let hex = crate::ledger::sha256_hex(format!("{run_id}\0{task}").as_bytes());
    u64::from_str_radix(&hex[..16], 16).unwrap_or(0)
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
    let Some(compare) = &task.compare else {
        return Err(Error::Harness(format!(
            "task `{}` is not a compare task",
            task.id
        )));
    };
    let side_env = |env: &[(String, String)], side: Side| {
        let mut env: Vec<(String, String)> = env
            .iter()
            .filter(|(k, _)| k != "GATE_SIDE")
            .cloned()
            .collect();
        env.push(("GATE_SIDE".to_string(), side.as_str().to_string()));
        env
    };
    let mut head = ProcessLauncher::new(task, policy, run_id, run_dir, redactor.clone());
    head.spec.env = side_env(&task.env, Side::Head);
    head.spec.sandbox = Some(Arc::clone(sandbox));
    let base_redactor = redactor.with_env(
        compare
            .base
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str())),
    );
    let mut base = ProcessLauncher::new(task, policy, run_id, &run_dir.join("base"), base_redactor);
    base.spec.run = compare.base.run.clone();
    base.spec.check = compare.base.check.clone();
    base.spec.cwd = compare.base.cwd.clone();
    base.spec.env = side_env(&compare.base.env, Side::Base);
    base.spec.sandbox = Some(Arc::clone(sandbox));
    let cfg = PairConfig {
        id: task.id.clone(),
        sampling: task.sampling.clone(),
        max_unavailable: task.max_unavailable,
        max_pairs: compare.rule.max_pairs,
        jobs: policy.jobs,
        order_seed: order_seed(run_id, &task.id),
        loss_route: compare.rule.loss_route,
    };
    run_pairs(&cfg, &head, &base, history, interrupt, sink)
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

/// A pair being run: the sides still to start, in order, and those started.
#[derive(Debug, Default)]
struct Running {
    /// Sides not started yet, in the order they run.
    queued: VecDeque<Side>,
    /// Sides started whose attempt 1 has not reported.
    pending: BTreeSet<Side>,
    /// How many sides of this pair were started so far (for `pair_position`).
    started: u8,
}

struct Lanes<'a, L: Launcher + ?Sized> {
    in_flight: InFlight<'a, (u64, Side), L>,
    /// Pairs launched, or of an interrupted session with a side never graded (run again
    /// first, at their own ordinal), not yet complete.
    running: BTreeMap<u64, Running>,
    next_pair: u64,
    /// Launch both sides at once.
    together: bool,
    /// Most pairs in flight.
    pair_slots: usize,
    head: &'a L,
    base: &'a L,
    head_tx: mpsc::Sender<TrialMsg>,
    base_tx: mpsc::Sender<TrialMsg>,
}

impl<L: Launcher + ?Sized> Lanes<'_, L> {
    fn start(&mut self, pair: u64, side: Side) {
        let cancel = Arc::new(AtomicBool::new(false));
        self.in_flight
            .flags
            .insert((pair, side), Arc::clone(&cancel));
        let (launcher, tx) = match side {
            Side::Head => (self.head, self.head_tx.clone()),
            Side::Base => (self.base, self.base_tx.clone()),
        };
        launcher.launch(pair, cancel, tx);
    }

    /// Start whatever sides may start now, lowest pair first: with sides together, every
    /// queued side of a pair in flight and of new pairs up to the slots; else a pair's next
    /// side once nothing of it is in flight.
    fn start_queued(&mut self) -> Vec<(u64, Side, u8)> {
        let mut started = Vec::new();
        let mut active = self
            .running
            .values()
            .filter(|r| !r.pending.is_empty())
            .count();
        let pairs: Vec<u64> = self.running.keys().copied().collect();
        for pair in pairs {
            while let Some(r) = self.running.get_mut(&pair) {
                if r.queued.is_empty() {
                    break;
                }
                if r.pending.is_empty() {
                    if active >= self.pair_slots {
                        break;
                    }
                    active += 1;
                } else if !self.together {
                    break;
                }
                let Some(side) = r.queued.pop_front() else {
                    break;
                };
                r.pending.insert(side);
                r.started += 1;
                let position = r.started;
                self.start(pair, side);
                started.push((pair, side, position));
            }
        }
        started
    }

    /// A side of `pair` is over: forget it, and the pair once nothing of it remains.
    fn side_over(&mut self, pair: u64, side: Side) {
        self.in_flight.flags.remove(&(pair, side));
        if let Some(r) = self.running.get_mut(&pair) {
            r.pending.remove(&side);
            if r.pending.is_empty() && r.queued.is_empty() {
                self.running.remove(&pair);
            }
        }
    }
}

/// Run one compare task to its decision (or to an interrupt or a harness error), emitting
/// every attempt (with its side and position in the pair) and the decision to `sink`.
pub fn run_pairs<L: Launcher + ?Sized>(
    cfg: &PairConfig,
    head: &L,
    base: &L,
    history: PairHistory,
    interrupt: &Interrupt,
    sink: &mut dyn EventSink,
) -> Result<TaskEnd, Error> {
    let mut sampler = PairSampler::new(
        cfg.sampling.clone(),
        cfg.max_unavailable,
        cfg.max_pairs,
        cfg.loss_route,
    )
    .map_err(|e| Error::Harness(format!("task `{}`: {e}", cfg.id)))?;
    sink.event(&RunEvent::TaskStarted {
        task: cfg.id.clone(),
        planned: cfg.max_pairs,
    })?;
    // One channel for the scheduler; each side's launcher reports on its own sender, and a
    // forwarder tags its messages with the side. The forwarders end when every sender of
    // their side is dropped (this function's and the trials' threads').
    let (tx, rx) = mpsc::channel::<(Side, TrialMsg)>();
    let forward = |side: Side| {
        let (side_tx, side_rx) = mpsc::channel::<TrialMsg>();
        let tx = tx.clone();
        std::thread::Builder::new()
            .name("gate-pair-side".into())
            .spawn(move || {
                for msg in side_rx {
                    if tx.send((side, msg)).is_err() {
                        break;
                    }
                }
            })
            .map(|_| side_tx)
            .map_err(|e| Error::Harness(format!("cannot start a thread for the pairs: {e}")))
    };
    let (head_tx, base_tx) = (forward(Side::Head)?, forward(Side::Base)?);
    drop(tx);

    let order = |pair: u64| {
        if base_first(cfg.order_seed, pair) {
            [Side::Base, Side::Head]
        } else {
            [Side::Head, Side::Base]
        }
    };
    let mut lanes = Lanes {
        in_flight: InFlight::new(vec![head, base]),
        running: BTreeMap::new(),
        next_pair: history
            .outcomes
            .keys()
            .next_back()
            .map_or(1, |(p, _)| p + 1),
        together: cfg.jobs >= 2,
        pair_slots: (cfg.jobs / 2).max(1),
        head,
        base,
        head_tx,
        base_tx,
    };
    // What an interrupted session recorded, in pair order: graded sides are offered, and a
    // pair with a side never graded (cancelled, or lost with no row) runs that side again.
    for pair in 1..lanes.next_pair {
        let mut queued = VecDeque::new();
        for side in order(pair) {
            match history.outcomes.get(&(pair, side)) {
                Some(&o) if o != Outcome::Cancelled => {
                    sampler.offer(pair, side, o);
                }
                _ => queued.push_back(side),
            }
        }
        if !queued.is_empty() {
            let started = (2 - queued.len()) as u8;
            lanes.running.insert(
                pair,
                Running {
                    queued,
                    pending: BTreeSet::new(),
                    started,
                },
            );
        }
    }
    let mut harness_error: Option<String> = None;
    let mut stopping = false;
    // Where each running side stands in its pair, for the rows.
    let mut positions: BTreeMap<(u64, Side), u8> = BTreeMap::new();

    loop {
        let finished = sampler.decision().is_some();
        if (interrupt.requested() || finished || harness_error.is_some()) && !stopping {
            stopping = true;
            lanes.in_flight.cancel_all();
        }
        if !stopping {
            fill(&mut lanes, &sampler, &order, &mut positions);
        }
        if lanes.in_flight.flags.is_empty() {
            break;
        }
        head.tidy();
        let mut batch = match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(m) => vec![m],
            Err(mpsc::RecvTimeoutError::Timeout) => continue,
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        };
        batch.extend(rx.try_iter());
        let mut rows = Vec::with_capacity(batch.len());
        for (side, msg) in batch {
            let mut row = match msg {
                TrialMsg::Done(pair) => {
                    // The side's thread ended without its last attempt (gate's own bug): it
                    // is over, ungraded; the pair waits for nothing more from it.
                    lanes.side_over(pair, side);
                    sampler.offer(pair, side, Outcome::Cancelled);
                    continue;
                }
                TrialMsg::Attempt { row, last } => {
                    if last {
                        lanes.side_over(row.trial, side);
                    }
                    row
                }
            };
            row.side = Some(side);
            row.pair_position = positions.get(&(row.trial, side)).copied();
            if row.outcome == Outcome::HarnessError && harness_error.is_none() {
                harness_error = Some(format!(
                    "pair {} ({} side) attempt {}: {}",
                    row.trial,
                    side.as_str(),
                    row.attempt,
                    row.detail.reason.clone().unwrap_or_default()
                ));
            }
            if row.attempt == 1 {
                sampler.offer(row.trial, side, row.outcome);
            }
            let (tally, view) = (sampler.rule().tally(), llr(&sampler));
            rows.push((row, tally, view));
        }
        let finished = sampler.decision().is_some();
        if !stopping && !finished && harness_error.is_none() && !interrupt.requested() {
            fill(&mut lanes, &sampler, &order, &mut positions);
        }
        for (row, tally, llr) in rows {
            sink.event(&RunEvent::Attempt {
                row: Box::new(*row),
                tally,
                llr,
            })?;
        }
    }
    // Sides due for a re-run that never started stay cancelled, as the replay counts them.
    for (pair, r) in std::mem::take(&mut lanes.running) {
        for side in r.queued {
            sampler.offer(pair, side, Outcome::Cancelled);
        }
    }

    let counts = sampler.counts();
    let llr_now = sampler.rule().llr();
    if let Some(why) = harness_error {
        return emit_end(sink, &cfg.id, Err(why), counts, llr_now);
    }
    let decision = match sampler.decision() {
        Some(d) => d.clone(),
        None if interrupt.requested() => {
            sink.event(&RunEvent::TaskInterrupted {
                task: cfg.id.clone(),
            })?;
            return Ok(TaskEnd::Interrupted);
        }
        None => Decision {
            verdict: Verdict::Inconclusive,
            reason: "no decision was reached".to_string(),
        },
    };
    emit_end(sink, &cfg.id, Ok(decision), counts, llr_now)
}

fn llr(s: &PairSampler) -> Option<super::events::LlrView> {
    s.rule()
        .llr()
        .zip(s.rule().llr_bounds())
        .map(|(l, (lo, hi))| (l, lo, hi))
}

/// Launch pairs up to the slots, but only as many as the rule could still need: pairs still
/// owed, minus those running or complete but not yet consumed. A void pair does not reduce
/// what is owed, so a replacement follows it; past the unavailable budget nothing more helps.
fn fill<L: Launcher + ?Sized>(
    lanes: &mut Lanes<'_, L>,
    sampler: &PairSampler,
    order: &dyn Fn(u64) -> [Side; 2],
    positions: &mut BTreeMap<(u64, Side), u8>,
) {
    // Pairs of an interrupted session are in `running` from the start, lowest first, so
    // they take the slots before any new pair.
    let owed = sampler.remaining_pairs();
    while lanes.running.len() < lanes.pair_slots {
        let (waiting_graded, waiting_void) = sampler.waiting();
        let pending = lanes.running.len() as u64 + waiting_graded;
        if pending >= owed || waiting_void > sampler.rule().remaining_unavailable() {
            break;
        }
        let pair = lanes.next_pair;
        lanes.next_pair += 1;
        lanes.running.insert(
            pair,
            Running {
                queued: order(pair).into_iter().collect(),
                pending: BTreeSet::new(),
                started: 0,
            },
        );
    }
    for (pair, side, position) in lanes.start_queued() {
        positions.insert((pair, side), position);
    }
}

#[cfg(test)]
mod tests {
    //! The pair scheduler against fake launchers: no processes, outcomes scripted by side.

    use std::collections::HashMap;
    use std::sync::Mutex;

    use super::*;
    use crate::ledger::DecisionRow;
    use crate::ledger::{AttemptRow, now_rfc3339};
    use crate::model::Judgement;
    use crate::model::SequentialRule;

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

    #[derive(Default)]
    struct Sink {
        attempts: Vec<AttemptRow>,
        decision: Option<DecisionRow>,
    }

    impl EventSink for Sink {
        fn event(&mut self, event: &RunEvent) -> Result<(), Error> {
            match event {
                RunEvent::Attempt { row, .. } => self.attempts.push((**row).clone()),
                RunEvent::TaskDecided { row, .. } => self.decision = Some(row.clone()),
                _ => {}
            }
            Ok(())
        }
    }

    fn config(jobs: usize) -> PairConfig {
        PairConfig {
            id: "t".into(),
            sampling: Sampling::Sequential {
                healthy: 0.5,
                regressed: 0.25,
                alpha: 0.05,
                beta: 0.1,
                max_trials: 60,
                rule: SequentialRule::Wald,
            },
            max_unavailable: 3,
            max_pairs: 60,
            jobs,
            order_seed: 9,
            loss_route: None,
        }
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
            let end = run_pairs(
                &config(jobs),
                &h,
                &b,
                PairHistory::default(),
                &Interrupt::none(),
                &mut sink,
            )
            .unwrap();
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
        run_pairs(
            &config(1),
            &h,
            &b,
            PairHistory::default(),
            &Interrupt::none(),
            &mut sink,
        )
        .unwrap();
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
    fn resume_runs_again_only_the_side_never_graded() {
        let mut history = PairHistory::default();
        history.outcomes.insert((1, Side::Head), Outcome::Pass);
        history.outcomes.insert((1, Side::Base), Outcome::Cancelled);
        history.outcomes.insert((2, Side::Head), Outcome::Fail);
        history.outcomes.insert((2, Side::Base), Outcome::Pass);
        let (h, b, launched) = fakes(false);
        let mut sink = Sink::default();
        run_pairs(&config(1), &h, &b, history, &Interrupt::none(), &mut sink).unwrap();
        let launched = launched.lock().unwrap();
        assert_eq!(launched[0], (1, Side::Base));
        assert!(!launched.contains(&(1, Side::Head)));
        assert!(!launched.contains(&(2, Side::Head)) && !launched.contains(&(2, Side::Base)));
        assert!(launched.contains(&(3, Side::Head)));
    }
}
