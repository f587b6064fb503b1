//! Test ledgers written with the real [`LedgerWriter`]: a header, attempt rows for given
//! outcomes, decision rows from a plain sampler loop (what a runner with `--jobs 1` does), and
//! a footer. Independent of [`super::replay`], so replaying these ledgers tests it.

use std::path::Path;

use crate::ledger::{
    AttemptRow, DecisionRow, Footer, Header, Ledger, LedgerWriter, Row, RunStatus, TaskResult,
    TaskSpec,
};
use crate::model::{
    Counts, Judgement, OnInconclusive, Outcome, Rates, Sampling, Shard, TimeoutPolicy,
    TrialOutcome, Verdict,
};
use crate::sampler::Sampler;

/// A fresh ledger writer at `path` (the one place the tests call `LedgerWriter::create`).
pub fn writer(path: &Path) -> LedgerWriter {
    LedgerWriter::create(path).expect("create ledger").0
}

/// A single-plan task.
pub fn single(id: &str, n: u64, c: u64) -> TaskSpec {
    TaskSpec {
        id: id.to_string(),
        line: Some(7),
        sampling: Sampling::Single { n, c },
        rates: Some(Rates {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
        }),
        max_unavailable: 2,
        run: format!("./agent {id}"),
        check: Some("./check".to_string()),
        timeout_s: Some(30.0),
        compare: None,
        suite: None,
    }
}

/// A sequential-plan task (0.9 vs 0.6, alpha 0.05, beta 0.1).
pub fn sequential(id: &str, max_trials: u64) -> TaskSpec {
    TaskSpec {
        sampling: Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.6,
            alpha: 0.05,
            beta: 0.1,
            max_trials,
            rule: crate::model::SequentialRule::Wald,
        },
        rates: None,
        ..single(id, 1, 0)
    }
}

/// A header for these tasks.
pub fn header(tasks: Vec<TaskSpec>, shard: Option<Shard>) -> Header {
    Header {
        schema: 2,
        gate_version: "0.1.0".to_string(),
        run_id: format!("run-{}", shard.map_or(0, |s| s.k)),
        plan_path: "plans/demo.yaml".to_string(),
        plan_hash: "p".repeat(64),
        fixture_hash: "f".repeat(64),
        programs: Default::default(),
        argv: vec!["gate".to_string(), "run".to_string()],
        started_at: "2026-11-29T14:00:00.000Z".to_string(),
        host: "ci".to_string(),
        shard,
        stage: None,
        after: Vec::new(),
        jobs: 1,
        timeout_policy: TimeoutPolicy::Fail,
        on_inconclusive: OnInconclusive::Fail,
        transport_exit_codes: vec![75],
        transport_max_retries: 1,
        tasks,
        sources: Vec::new(),
        sandbox: None,
        ci: None,
    }
}

/// Attempt 1 of a trial with this outcome (a fail is `run` exiting 1).
pub fn attempt(task: &str, trial: u64, attempt: u32, outcome: Outcome) -> AttemptRow {
    let (exit_code, fault) = match outcome {
        Outcome::Pass => (Some(0), None),
        Outcome::Fail => (Some(1), None),
        Outcome::Unavailable => (Some(75), Some(crate::model::Fault::Transport)),
        Outcome::Cancelled => (None, Some(crate::model::Fault::Cancelled)),
        Outcome::HarnessError => (Some(127), Some(crate::model::Fault::Harness)),
    };
    AttemptRow {
        task: task.to_string(),
        trial,
        attempt,
        started_at: "2026-11-29T14:00:01.000Z".into(),
        duration_s: 0.25 * (1 + trial % 4) as f64,
        exit_code,
        signal: None,
        check_exit: (outcome == Outcome::Pass).then_some(0),
        fault,
        outcome,
        graded: attempt == 1 && matches!(outcome, Outcome::Pass | Outcome::Fail),
        detail: crate::ledger::AttemptDetail {
            result: Some(
                TaskResult {
                    cost: Some(0.5),
                    attempts: Some(1 + trial % 3),
                    ..TaskResult::default()
                }
                .into(),
            ),
            reason: (outcome == Outcome::HarnessError)
                .then(|| "`./agent` not found (exit 127)".into()),
            stdout_tail: format!("trial {trial}\n"),
            stderr_tail: String::new(),
            log: None,
        }
        .into(),
        side: None,
        pair_position: None,
        suite_run: None,
    }
}

/// Write a run: for each task, trials 1.. with the given outcomes (only those `shard` owns),
/// consumed in order; an unsharded run stops at its decision (curtailment). Decision rows and
/// a footer as a runner writes them. Returns the ledger read back.
pub fn run(path: &Path, tasks: &[(TaskSpec, Vec<Outcome>)], shard: Option<Shard>) -> Ledger {
    let mut w = writer(path);
    w.append(Row::Header(
        header(tasks.iter().map(|(t, _)| t.clone()).collect(), shard).into(),
    ))
    .expect("append");
    let mut verdicts = Vec::new();
    let mut harness = false;
    for (spec, outcomes) in tasks {
        let mut sampler =
            Sampler::new(spec.sampling.clone(), spec.max_unavailable).expect("sampler");
        let mut task_harness = false;
        for (i, &o) in outcomes.iter().enumerate() {
            let ordinal = i as u64 + 1;
            if shard.is_some_and(|s| !s.owns(ordinal)) {
                continue;
            }
            if shard.is_none() && sampler.decision().is_some() {
                break;
            }
            w.append(Row::Attempt(attempt(&spec.id, ordinal, 1, o).into()))
                .expect("append");
            match o {
                Outcome::Pass => {
                    sampler.consume(TrialOutcome::Pass);
                }
                Outcome::Fail => {
                    sampler.consume(TrialOutcome::Fail);
                }
                Outcome::Unavailable => {
                    sampler.consume(TrialOutcome::Unavailable);
                }
                Outcome::HarnessError => {
                    task_harness = true;
                    break;
                }
                Outcome::Cancelled => {}
            }
        }
        let verdict = if task_harness {
            Judgement::HarnessError
        } else {
            Judgement::Verdict(
                sampler
                    .decision()
                    .map_or(Verdict::Inconclusive, |d| d.verdict),
            )
        };
        harness |= task_harness;
        verdicts.push(verdict);
        w.append(Row::Decision(
            DecisionRow {
                task: spec.id.clone(),
                verdict,
                reason: sampler
                    .decision()
                    .map_or("undecided".to_string(), |d| d.reason.clone()),
                counts: Counts::from_tally(sampler.tally(), 0, 0),
                llr: sampler.llr(),
            }
            .into(),
        ))
        .expect("append");
    }
    let verdict = if harness {
        Judgement::HarnessError
    } else {
        Judgement::Verdict(Verdict::combine(
            verdicts.into_iter().filter_map(Judgement::verdict),
        ))
    };
    w.append(Row::Footer(Box::new(Footer {
        finished_at: "2026-11-29T14:05:00.000Z".to_string(),
        status: if harness {
            RunStatus::HarnessError
        } else {
            RunStatus::Complete
        },
        verdict,
        exit_code: crate::exit::for_run(verdict, OnInconclusive::Fail, shard.is_some()),
    })))
    .expect("append");
    Ledger::read(path).expect("read back")
}

/// `n` outcomes where the ordinals in `fails` fail and the rest pass.
pub fn outcomes(n: u64, fails: &[u64]) -> Vec<Outcome> {
    (1..=n)
        .map(|o| {
            if fails.contains(&o) {
                Outcome::Fail
            } else {
                Outcome::Pass
            }
        })
        .collect()
}

/// A two-task run: `book-flight` PASSes a single plan (20, 3) with failures at ordinals 4
/// and 9; `refund` FAILs a sequential plan after four trials.
pub fn sample(dir: &Path) -> crate::report::Report {
    let l = run(
        &dir.join("ledger.jsonl"),
        &[
            (single("book-flight", 20, 3), outcomes(20, &[4, 9])),
            (sequential("refund", 40), outcomes(40, &[1, 2, 4, 5, 7])),
        ],
        None,
    );
    crate::report::Report::from_ledgers(&[l], None).expect("report")
}

/// A run whose only task is INCONCLUSIVE: three shards of a (30, 3) plan, shard 3 missing.
pub fn missing_shard(dir: &Path) -> Vec<Ledger> {
    let tasks = [(single("search", 30, 3), outcomes(30, &[2]))];
    (1..=2)
        .map(|k| {
            run(
                &dir.join(format!("shard-{k}.jsonl")),
                &tasks,
                Some(Shard { k, m: 3 }),
            )
        })
        .collect()
}

/// A run where `checkout`'s second trial could not be run (exit 127).
pub fn harness_error(dir: &Path) -> crate::report::Report {
    let l = run(
        &dir.join("ledger.jsonl"),
        &[
            (single("login", 5, 0), outcomes(5, &[])),
            (
                single("checkout", 5, 0),
                vec![Outcome::Pass, Outcome::HarnessError],
            ),
        ],
        None,
    );
    crate::report::Report::from_ledgers(&[l], None).expect("report")
}

/// A run with trials launched but not counted, and with unavailable trials:
///
/// - `book` (single (10, 2)): trials 1–8 pass and decide; trial 9 passes after the decision
///   (excluded, cost 0.5) and trial 10 is cancelled in flight (no result file).
/// - `pay` (single (33, 6), budget 4): trials 1–3 are unavailable — trial 2 a timeout under
///   `timeout: unavailable`, the others transport faults — then 27 pass: 10% of the trials
///   drawn were unavailable.
pub fn faults(dir: &Path) -> Ledger {
    let path = dir.join("faults.jsonl");
    let mut w = writer(&path);
    let mut pay = single("pay", 33, 6);
    pay.max_unavailable = 4;
    let mut head = header(vec![single("book", 10, 2), pay], None);
    head.timeout_policy = TimeoutPolicy::Unavailable;
    head.jobs = 2;
    w.append(Row::Header(head.into())).expect("append");
    for trial in 1..=8 {
        w.append(Row::Attempt(
            attempt("book", trial, 1, Outcome::Pass).into(),
        ))
        .expect("append");
    }
    w.append(Row::Attempt(attempt("book", 9, 1, Outcome::Pass).into()))
        .expect("append");
    let mut cancelled = attempt("book", 10, 1, Outcome::Cancelled);
    cancelled.detail.result = None;
    cancelled.duration_s = 1.5;
    w.append(Row::Attempt(cancelled.into())).expect("append");
    for trial in 1..=3 {
        let mut a = attempt("pay", trial, 1, Outcome::Unavailable);
        if trial == 2 {
            a.fault = Some(crate::model::Fault::Timeout);
            a.exit_code = None;
            a.signal = Some(9);
        }
        w.append(Row::Attempt(a.into())).expect("append");
    }
    for trial in 4..=30 {
        w.append(Row::Attempt(attempt("pay", trial, 1, Outcome::Pass).into()))
            .expect("append");
    }
    Ledger::read(&path).expect("read back")
}
