//! The replay against ledgers the fixture writes with the runner's sampler.

use super::read::session_jobs;
use super::*;
use crate::ledger::Row;
use crate::model::Shard;
use crate::report::fixture::{self, outcomes, sequential, single};

fn dir() -> tempfile::TempDir {
    tempfile::tempdir().expect("tempdir")
}

fn only(r: &Replay) -> &TaskReplay {
    &r.tasks[0]
}

#[test]
fn single_plan_curtails_and_matches_the_decision_row() {
    let d = dir();
    // n = 10, c = 1: the second failure at ordinal 4 decides FAIL.
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        &[(single("t", 10, 1), outcomes(10, &[2, 4]))],
        None,
    );
    let r = replay(std::slice::from_ref(&l)).unwrap();
    let t = only(&r);
    assert_eq!(t.verdict, Judgement::Verdict(Verdict::Fail));
    assert_eq!(t.decided_at, Some(4));
    assert_eq!(t.counts.run, 4);
    assert_eq!((t.counts.passed, t.counts.failed), (2, 2));
    let d = l.decisions().next().unwrap();
    assert_eq!((d.verdict, d.counts), (t.verdict, t.counts));
    assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Fail));
}

#[test]
fn sequential_plan_replays_to_the_runner_decision() {
    let d = dir();
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        &[(sequential("s", 60), outcomes(60, &[5, 17]))],
        None,
    );
    let r = replay(std::slice::from_ref(&l)).unwrap();
    let t = only(&r);
    let dec = l.decisions().next().unwrap();
    assert_eq!(t.verdict, dec.verdict);
    assert_eq!(t.counts, dec.counts);
    assert_eq!(t.llr, dec.llr);
    assert_eq!(t.verdict, Judgement::Verdict(Verdict::Pass));
}

#[test]
fn three_shards_merge_to_one_run() {
    let d = dir();
    let tasks = [
        (single("a", 30, 3), outcomes(30, &[3, 11, 20])),
        (single("b", 30, 3), outcomes(30, &[1, 5, 8, 13, 22])),
    ];
    let one = fixture::run(&d.path().join("one.jsonl"), &tasks, None);
    let shards: Vec<Ledger> = (1..=3)
        .map(|k| {
            fixture::run(
                &d.path().join(format!("s{k}.jsonl")),
                &tasks,
                Some(Shard { k, m: 3 }),
            )
        })
        .collect();
    let a = replay(std::slice::from_ref(&one)).unwrap();
    let b = replay(&shards).unwrap();
    assert_eq!(a.verdict(), b.verdict());
    for (x, y) in a.tasks.iter().zip(&b.tasks) {
        assert_eq!(x.verdict, y.verdict, "{}", x.spec.id);
        assert_eq!(x.reason, y.reason, "{}", x.spec.id);
        let (cx, cy) = (x.counts, y.counts);
        assert_eq!(
            (cx.run, cx.passed, cx.failed, cx.unavailable),
            (cy.run, cy.passed, cy.failed, cy.unavailable),
            "{}",
            x.spec.id
        );
    }
    // The shards ran past b's decision point (ordinal 13): those trials are excluded.
    assert_eq!(b.tasks[1].counts.excluded, 30 - 13);
    let cov = b.shards.unwrap();
    assert_eq!((cov.present, cov.missing), (vec![1, 2, 3], vec![]));
}

#[test]
fn a_missing_shard_is_missing_trials_unless_the_verdict_is_certain() {
    let d = dir();
    let tasks = [
        // Four failures among ordinals owned by shards 1 and 2: FAIL is certain.
        (single("certain", 30, 3), outcomes(30, &[1, 2, 4, 5])),
        (single("open", 30, 3), outcomes(30, &[1])),
    ];
    let shards: Vec<Ledger> = (1..=2)
        .map(|k| {
            fixture::run(
                &d.path().join(format!("s{k}.jsonl")),
                &tasks,
                Some(Shard { k, m: 3 }),
            )
        })
        .collect();
    let r = replay(&shards).unwrap();
    assert_eq!(r.tasks[0].verdict, Judgement::Verdict(Verdict::Fail));
    assert_eq!(
        r.tasks[1].verdict,
        Judgement::Verdict(Verdict::Inconclusive)
    );
    assert!(
        r.tasks[1].reason.starts_with("trials missing"),
        "{}",
        r.tasks[1].reason
    );
    assert!(r.tasks[1].reason.contains("shard 3 of 3 absent"));
    assert_eq!(r.shards.as_ref().unwrap().missing, vec![3]);
    assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Fail));
}

#[test]
fn a_sequential_plan_stops_at_its_first_gap() {
    let d = dir();
    let tasks = [(sequential("s", 60), outcomes(60, &[]))];
    let shards: Vec<Ledger> = [1, 3]
        .iter()
        .map(|&k| {
            fixture::run(
                &d.path().join(format!("s{k}.jsonl")),
                &tasks,
                Some(Shard { k, m: 3 }),
            )
        })
        .collect();
    let r = replay(&shards).unwrap();
    let t = only(&r);
    // Ordinal 1 is consumed, ordinal 2 is missing: nothing after it counts.
    assert_eq!(t.counts.run, 1);
    assert_eq!(t.verdict, Judgement::Verdict(Verdict::Inconclusive));
    assert!(t.reason.contains("stops at its first gap"), "{}", t.reason);
    assert_eq!(t.counts.excluded, 40 - 1);
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

    /// Any single plan, any outcomes, any number of shards: the merged shards decide as
    /// one run of the same trials, with the same counts (bar trials run past the decision).
    #[test]
    fn shards_merge_like_one_run(
        n in 1u64..40,
        c_frac in 0.0f64..0.5,
        fails in proptest::collection::vec(proptest::bool::weighted(0.25), 40),
        m in 1u64..5,
    ) {
        let c = ((n as f64) * c_frac) as u64;
        let outs: Vec<Outcome> = fails[..n as usize]
            .iter()
            .map(|&f| if f { Outcome::Fail } else { Outcome::Pass })
            .collect();
        let d = dir();
        let tasks = [(single("t", n, c), outs)];
        let one = fixture::run(&d.path().join("one.jsonl"), &tasks, None);
        let shards: Vec<Ledger> = (1..=m)
            .map(|k| fixture::run(
                &d.path().join(format!("s{k}.jsonl")),
                &tasks,
                Some(Shard { k, m }),
            ))
            .collect();
        let a = replay(std::slice::from_ref(&one)).unwrap();
        let b = replay(&shards).unwrap();
        let (x, y) = (only(&a), only(&b));
        proptest::prop_assert_eq!(x.verdict, y.verdict);
        proptest::prop_assert_eq!(&x.reason, &y.reason);
        proptest::prop_assert_eq!(x.decided_at, y.decided_at);
        let (cx, cy) = (x.counts, y.counts);
        proptest::prop_assert_eq!(
            (cx.run, cx.passed, cx.failed, cx.unavailable, cx.cancelled),
            (cy.run, cy.passed, cy.failed, cy.unavailable, cy.cancelled)
        );
        // And the one run's decision row is what the replay recomputes.
        let dec = one.decisions().next().unwrap();
        proptest::prop_assert_eq!((dec.verdict, dec.counts), (x.verdict, x.counts));
    }
}

#[test]
fn missing_ordinals_are_ranges_up_to_n_while_undecided() {
    let d = dir();
    let rows = vec![
        Row::Header(fixture::header(vec![single("t", 1000, 10)], None).into()),
        Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass).into()),
        Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Pass).into()),
        Row::Attempt(fixture::attempt("t", 5, 1, Outcome::Pass).into()),
        Row::Footer(Box::new(crate::ledger::Footer {
            finished_at: "x".into(),
            status: RunStatus::Complete,
            verdict: Judgement::Verdict(Verdict::Inconclusive),
            exit_code: 3,
        })),
    ];
    let t = replay(&[write(&d.path().join("l.jsonl"), rows)])
        .unwrap()
        .tasks
        .remove(0);
    let r = |first, last| OrdinalRange { first, last };
    assert_eq!(t.missing, vec![r(3, 4), r(6, 1000)]);
    assert_eq!(ordinal_count(&t.missing), 997);
    assert!(
        t.reason
            .contains("997 ordinals not recorded (#3–4, #6–1000)"),
        "{}",
        t.reason
    );
}

#[test]
fn a_decided_task_has_no_trailing_missing_ordinals() {
    let d = dir();
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        &[(single("t", 10, 1), outcomes(10, &[2, 4]))],
        None,
    );
    assert!(replay(&[l]).unwrap().tasks[0].missing.is_empty());
}

#[test]
fn ordinals_within_the_rows_and_the_jobs_of_every_session_are_accepted() {
    let d = dir();
    // Two rows, `--jobs 2` in the header: a crash may have lost up to 4 trials before
    // the highest recorded one, so #6 is possible and #7 is not.
    let mut h = fixture::header(vec![single("t", 30, 3)], None);
    h.jobs = 2;
    let rows = |last| {
        vec![
            Row::Header(h.clone().into()),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass).into()),
            Row::Attempt(fixture::attempt("t", last, 1, Outcome::Pass).into()),
        ]
    };
    assert!(replay(&[write(&d.path().join("a.jsonl"), rows(6))]).is_ok());
    let err = replay(&[write(&d.path().join("b.jsonl"), rows(7))]).unwrap_err();
    assert!(
        matches!(
            err,
            ReportError::ImpossibleOrdinal {
                trial: 7,
                limit: 6,
                ..
            }
        ),
        "{err}"
    );
    // A `--resume -j 8` session may have lost more.
    let mut with_resume = rows(7);
    with_resume.insert(
        2,
        Row::Resume(
            crate::ledger::Resume {
                started_at: "x".into(),
                argv: vec!["gate".into(), "run".into(), "-j".into(), "8".into()],
                host: "ci".into(),
                sandbox: None,
            }
            .into(),
        ),
    );
    assert!(replay(&[write(&d.path().join("c.jsonl"), with_resume)]).is_ok());
}

#[test]
fn session_jobs_reads_every_spelling() {
    let v = |xs: &[&str]| xs.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    assert_eq!(session_jobs(&v(&["gate", "run", "--jobs", "4"])), Some(4));
    assert_eq!(session_jobs(&v(&["gate", "run", "--jobs=5"])), Some(5));
    assert_eq!(session_jobs(&v(&["gate", "run", "-j", "6"])), Some(6));
    assert_eq!(session_jobs(&v(&["gate", "run", "-j7"])), Some(7));
    assert_eq!(session_jobs(&v(&["gate", "run", "--resume"])), None);
}

#[test]
fn the_same_ledger_twice_is_deduplicated() {
    let d = dir();
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        &[(single("t", 10, 1), outcomes(10, &[3]))],
        None,
    );
    let once = replay(std::slice::from_ref(&l)).unwrap();
    let twice = replay(&[l.clone(), l]).unwrap();
    assert_eq!(once.tasks[0].counts, twice.tasks[0].counts);
    assert_eq!(once.tasks[0].verdict, twice.tasks[0].verdict);
}

fn write(path: &std::path::Path, rows: Vec<Row>) -> Ledger {
    let mut w = fixture::writer(path);
    for row in rows {
        w.append(row).unwrap();
    }
    Ledger::read(path).unwrap()
}

#[test]
fn two_different_rows_for_one_attempt_name_both_files() {
    let d = dir();
    let h = || Row::Header(fixture::header(vec![single("t", 5, 1)], None).into());
    let a = write(
        &d.path().join("a.jsonl"),
        vec![
            h(),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass).into()),
        ],
    );
    let b = write(
        &d.path().join("b.jsonl"),
        vec![
            h(),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Fail).into()),
        ],
    );
    let err = replay(&[a, b]).unwrap_err().to_string();
    assert!(err.contains("a.jsonl:2"), "{err}");
    assert!(err.contains("b.jsonl:2"), "{err}");
    assert!(err.contains("trial #1 attempt 1"), "{err}");
}

#[test]
fn mixed_plan_or_fixture_hashes_are_refused() {
    let d = dir();
    let mut other = fixture::header(vec![single("t", 5, 1)], None);
    other.plan_hash = "q".repeat(64);
    let a = write(
        &d.path().join("a.jsonl"),
        vec![Row::Header(
            fixture::header(vec![single("t", 5, 1)], None).into(),
        )],
    );
    let b = write(
        &d.path().join("b.jsonl"),
        vec![Row::Header(other.clone().into())],
    );
    assert!(matches!(
        replay(&[a.clone(), b]),
        Err(ReportError::MixedPlan { .. })
    ));
    other.plan_hash = "p".repeat(64);
    other.fixture_hash = "g".repeat(64);
    let c = write(&d.path().join("c.jsonl"), vec![Row::Header(other.into())]);
    assert!(matches!(
        replay(&[a, c]),
        Err(ReportError::MixedFixture { .. })
    ));
}

#[test]
fn a_whole_run_and_a_shard_are_not_merged() {
    let d = dir();
    let tasks = [(single("t", 10, 1), outcomes(10, &[]))];
    let whole = fixture::run(&d.path().join("whole.jsonl"), &tasks, None);
    let shard = fixture::run(
        &d.path().join("s1.jsonl"),
        &tasks,
        Some(Shard { k: 1, m: 2 }),
    );
    let err = replay(&[whole, shard]).unwrap_err().to_string();
    assert!(err.contains("whole.jsonl"), "{err}");
    assert!(err.contains("shard 1/2"), "{err}");
}

#[test]
fn retries_are_never_promoted_and_are_counted() {
    let d = dir();
    let l = write(
        &d.path().join("l.jsonl"),
        vec![
            Row::Header(fixture::header(vec![single("t", 2, 0)], None).into()),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Unavailable).into()),
            Row::Attempt(fixture::attempt("t", 1, 2, Outcome::Pass).into()),
            Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Pass).into()),
            Row::Attempt(fixture::attempt("t", 3, 1, Outcome::Pass).into()),
        ],
    );
    let r = replay(&[l]).unwrap();
    let t = only(&r);
    assert_eq!(t.retry_passes_refused, 1);
    assert_eq!(
        (t.counts.passed, t.counts.unavailable, t.counts.run),
        (2, 1, 3)
    );
    assert_eq!(t.verdict, Judgement::Verdict(Verdict::Pass));
}

#[test]
fn rows_in_completion_order_become_trials_in_ordinal_order_with_attempts_sorted() {
    // With parallel jobs rows arrive as trials end; a trial's retries may be written before
    // a lower ordinal's attempt 1, and a damaged ledger may hold a retry without attempt 1.
    let d = dir();
    let l = write(
        &d.path().join("l.jsonl"),
        vec![
            Row::Header(fixture::header(vec![single("t", 5, 1)], None).into()),
            Row::Attempt(fixture::attempt("t", 3, 1, Outcome::Unavailable).into()),
            Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Fail).into()),
            Row::Attempt(fixture::attempt("t", 3, 3, Outcome::Pass).into()),
            Row::Attempt(fixture::attempt("t", 5, 2, Outcome::Pass).into()),
            Row::Attempt(fixture::attempt("t", 3, 2, Outcome::Unavailable).into()),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass).into()),
        ],
    );
    let r = replay(&[l]).unwrap();
    let t = only(&r);
    let shape: Vec<(u64, Option<u32>, Vec<u32>, u64)> = t
        .trials
        .iter()
        .map(|tr| {
            (
                tr.ordinal,
                tr.first.as_ref().map(|a| a.row.attempt),
                tr.later.iter().map(|a| a.row.attempt).collect(),
                tr.first.as_ref().map_or(0, |a| a.source.line),
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (1, Some(1), vec![], 7),
            (2, Some(1), vec![], 3),
            (3, Some(1), vec![2, 3], 2),
            (5, None, vec![2], 0),
        ]
    );
    assert_eq!(t.trials[3].disposition, Disposition::NoFirstAttempt);
    assert_eq!(t.retry_passes_refused, 2);
}

#[test]
fn a_cancelled_attempt_gives_way_to_its_resumed_run() {
    let d = dir();
    let h = Row::Header(fixture::header(vec![single("t", 2, 0)], None).into());
    let l = write(
        &d.path().join("l.jsonl"),
        vec![
            h,
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass).into()),
            Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Cancelled).into()),
            Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Fail).into()),
        ],
    );
    let t = replay(&[l]).unwrap().tasks.remove(0);
    assert_eq!(t.verdict, Judgement::Verdict(Verdict::Fail));
    assert_eq!(t.counts.cancelled, 0);
}

#[test]
fn a_cancelled_trial_is_skipped_not_a_gap_even_for_a_sequential_plan() {
    let d = dir();
    let spec = sequential("s", 60);
    let mut rows = vec![Row::Header(fixture::header(vec![spec], None).into())];
    rows.push(Row::Attempt(
        fixture::attempt("s", 1, 1, Outcome::Cancelled).into(),
    ));
    for o in 2..=40 {
        rows.push(Row::Attempt(
            fixture::attempt("s", o, 1, Outcome::Pass).into(),
        ));
    }
    let t = replay(&[write(&d.path().join("l.jsonl"), rows)])
        .unwrap()
        .tasks
        .remove(0);
    assert_eq!(t.verdict, Judgement::Verdict(Verdict::Pass));
    assert_eq!(t.counts.cancelled, 1);
    assert!(t.missing.is_empty());
}

#[test]
fn nothing_written_after_a_harness_error_is_consumed() {
    let d = dir();
    // Rows in completion order: #1, #4, #3 (harness error), #2.
    let rows = vec![
        Row::Header(fixture::header(vec![single("t", 10, 1)], None).into()),
        Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass).into()),
        Row::Attempt(fixture::attempt("t", 4, 1, Outcome::Pass).into()),
        Row::Attempt(fixture::attempt("t", 3, 1, Outcome::HarnessError).into()),
        Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Fail).into()),
    ];
    let t = replay(&[write(&d.path().join("l.jsonl"), rows)])
        .unwrap()
        .tasks
        .remove(0);
    assert_eq!(t.verdict, Judgement::HarnessError);
    assert_eq!(
        (t.counts.run, t.counts.passed, t.counts.excluded),
        (1, 1, 2)
    );
}

#[test]
fn a_harness_error_leaves_no_verdict() {
    let d = dir();
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        &[
            (single("ok", 3, 0), outcomes(3, &[])),
            (
                single("broken", 3, 0),
                vec![Outcome::Pass, Outcome::HarnessError],
            ),
        ],
        None,
    );
    let r = replay(&[l]).unwrap();
    assert_eq!(r.tasks[0].verdict, Judgement::Verdict(Verdict::Pass));
    assert_eq!(r.tasks[1].verdict, Judgement::HarnessError);
    assert!(
        r.tasks[1].reason.contains("not found"),
        "{}",
        r.tasks[1].reason
    );
    assert_eq!(r.verdict(), Judgement::HarnessError);
}

#[test]
fn an_unfinished_run_is_interrupted() {
    let d = dir();
    let l = write(
        &d.path().join("l.jsonl"),
        vec![
            Row::Header(fixture::header(vec![single("t", 5, 1)], None).into()),
            Row::Attempt(fixture::attempt("t", 1, 1, Outcome::Pass).into()),
            Row::Attempt(fixture::attempt("t", 2, 1, Outcome::Cancelled).into()),
        ],
    );
    let r = replay(&[l]).unwrap();
    assert!(r.interrupted());
    let t = only(&r);
    assert_eq!(t.verdict, Judgement::Verdict(Verdict::Inconclusive));
    assert!(t.reason.starts_with("interrupted"), "{}", t.reason);
    assert_eq!(t.counts.cancelled, 1);
}
