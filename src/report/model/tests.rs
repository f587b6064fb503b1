//! The report model against ledgers the fixture writes, and the exact figures recomputed
//! independently.

use super::build::{fault_risk, latency};
use super::*;
use crate::ledger::Ledger;
use crate::ledger::{Row, TaskResult};
use crate::model::{Fault, Outcome};
use crate::report::fixture::{self, outcomes, sample, single};
use crate::report::words::{prob, uncounted_text};
use crate::stats::lattice::Boundaries;
use crate::stats::post_stop::{SampleSpace, truncated};

#[test]
fn pass_rate_pass_at_k_and_exit_code_come_from_the_replay() {
    let d = tempfile::tempdir().unwrap();
    let r = sample(d.path());
    let t = &r.tasks[0];
    // 17 passes reach n - c = 17 after 19 graded trials (failures at 4 and 9).
    assert_eq!((t.replay.counts.passed, t.graded), (17, 19));
    let pr = t.pass_rate.unwrap();
    assert!((pr.naive.estimate - 17.0 / 19.0).abs() < 1e-12);
    let n = pr.naive;
    assert!(n.wilson.lo < n.estimate && n.estimate < n.wilson.hi);
    // The published figures are the stopping rule's: the curtailed (20, 3) passed at 19.
    assert_eq!(pr.method, EstimateMethod::Stagewise);
    let space = SampleSpace::new(&Boundaries::single(20, 3).unwrap());
    let e = space.estimate(19, 2, CONFIDENCE).unwrap();
    assert_eq!((pr.estimate, pr.ci95), (e.median_unbiased, e.interval));
    assert_eq!(
        t.pass_at.iter().map(|p| p.k).collect::<Vec<_>>(),
        vec![1, 3, 5]
    );
    // pass^3 from the pass rate, and the combinatorial C(17,3)/C(19,3) kept as naive.
    let p3 = t.pass_at[1];
    assert!((p3.pass_hat_k - pr.estimate.powi(3)).abs() < 1e-12);
    assert!((p3.pass_hat_k_ci95.lo - pr.ci95.lo.powi(3)).abs() < 1e-12);
    assert!((p3.naive.pass_hat_k - (17.0 * 16.0 * 15.0) / (19.0 * 18.0 * 17.0)).abs() < 1e-12);
    assert!((p3.pass_at_k - (1.0 - (1.0 - pr.estimate).powi(3))).abs() < 1e-12);
    assert_eq!(r.tasks[1].verdict(), Judgement::Verdict(Verdict::Fail));
    assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Fail));
    assert_eq!(r.exit_code(), crate::exit::FAIL);
}

#[test]
fn multiplicity_cost_combines_the_exact_alphas() {
    let d = tempfile::tempdir().unwrap();
    let r = sample(d.path());
    let a0 = 1.0 - Boundaries::single(20, 3).unwrap().oc(0.9).p_pass;
    let a1 = 1.0
        - Boundaries::wald(&crate::stats::sprt::Sprt::new(0.9, 0.6, 0.05, 0.1, 40).unwrap())
            .oc(0.9)
            .p_pass;
    assert!((r.tasks[0].alpha.unwrap() - a0).abs() < 1e-12);
    assert!((r.tasks[1].alpha.unwrap() - a1).abs() < 1e-12);
    let cost = r.multiplicity.cost.unwrap();
    assert!((cost - (1.0 - (1.0 - a0) * (1.0 - a1))).abs() < 1e-12);
    assert!(r.multiplicity.unknown.is_empty());
}

#[test]
fn multiplicity_under_on_inconclusive_pass_counts_only_fail() {
    // A truncated sequential rule is INCONCLUSIVE with real probability; under
    // `on_inconclusive: pass` that does not fail the gate, so alpha is P(FAIL | healthy).
    let d = tempfile::tempdir().unwrap();
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        // Two tasks: the reports show the multiplicity cost of more than one.
        &[
            (fixture::sequential("s", 12), outcomes(12, &[])),
            (fixture::sequential("t", 12), outcomes(12, &[])),
        ],
        None,
    );
    let oc =
        Boundaries::wald(&crate::stats::sprt::Sprt::new(0.9, 0.6, 0.05, 0.1, 12).unwrap()).oc(0.9);
    assert!(oc.p_inconclusive > 0.01, "{oc:?}");
    let fail = Report::from_ledgers(std::slice::from_ref(&l), None).unwrap();
    assert!((fail.tasks[0].alpha.unwrap() - (1.0 - oc.p_pass)).abs() < 1e-12);
    let pass = Report::from_ledgers(&[l], Some(OnInconclusive::Pass)).unwrap();
    assert!((pass.tasks[0].alpha.unwrap() - oc.p_fail).abs() < 1e-12);
    let both = 1.0 - (1.0 - oc.p_fail) * (1.0 - oc.p_fail);
    assert!((pass.multiplicity.cost.unwrap() - both).abs() < 1e-12);
    assert!(pass.terminal().contains("(αᵢ = P(FAIL | healthy)"));
    assert!(fail.terminal().contains("(αᵢ = P(not PASS | healthy)"));
}

#[test]
fn with_exit_code_overrides_the_exit_code_every_report_shows() {
    let d = tempfile::tempdir().unwrap();
    // A lone shard: INCONCLUSIVE, which `gate report` exits 3 with and `gate run` 0.
    let l = fixture::run(
        &d.path().join("s1.jsonl"),
        &[(single("t", 30, 3), outcomes(30, &[]))],
        Some(crate::model::Shard { k: 1, m: 3 }),
    );
    let r = Report::from_ledgers(&[l], None).unwrap();
    assert_eq!(r.exit_code(), crate::exit::INCONCLUSIVE);
    assert!(r.terminal().contains(
        "gate  INCONCLUSIVE for now: shard 1/3 of a sharded run (exit 3; `gate report` over all shards decides)"
    ));
    let r = r.with_exit_code(crate::exit::SUCCESS);
    assert_eq!(r.exit_code(), 0);
    assert_eq!(r.verdict_exit_code(), crate::exit::INCONCLUSIVE);
    let text = r.terminal();
    assert!(
        text.contains(
            "gate  INCONCLUSIVE for now: shard 1/3 of a sharded run (exit 0; `gate report` over all shards decides) · 1 task"
        ),
        "{text}"
    );
    let md = crate::report::markdown::render(&r);
    assert!(md.contains("· exit code 0\n"), "{md}");
    assert!(md.contains("INCONCLUSIVE for now: shard 1/3 of a sharded run (exit 0)"));
    let json: serde_json::Value =
        serde_json::from_str(&crate::report::json::render(&r).unwrap()).unwrap();
    assert_eq!(json["exit_code"], 0);
    assert_eq!(json["verdict"], "INCONCLUSIVE");
}

#[test]
fn a_bare_single_plan_has_unknown_alpha() {
    let d = tempfile::tempdir().unwrap();
    let mut spec = single("bare", 5, 0);
    spec.rates = None;
    let l = fixture::run(&d.path().join("l.jsonl"), &[(spec, outcomes(5, &[]))], None);
    let r = Report::from_ledgers(&[l], None).unwrap();
    assert_eq!(r.multiplicity.cost, None);
    assert_eq!(r.multiplicity.unknown, vec!["bare".to_string()]);
    assert!(!r.tasks[0].oc.is_empty());
}

#[test]
fn the_score_vector_separates_first_attempt_from_within_budget() {
    let d = tempfile::tempdir().unwrap();
    let path = d.path().join("l.jsonl");
    let mut w = fixture::writer(&path);
    w.append(Row::Header(
        fixture::header(vec![single("t", 7, 3)], None).into(),
    ))
    .unwrap();
    let with = |trial, outcome, internal: Option<u64>, f: &dyn Fn(&mut AttemptRow)| {
        let mut a = fixture::attempt("t", trial, 1, outcome);
        a.detail.result = Some(
            TaskResult {
                attempts: internal,
                cost: Some(1.5),
                tokens: None,
                ..TaskResult::default()
            }
            .into(),
        );
        a.duration_s = trial as f64;
        f(&mut a);
        Row::Attempt(a.into())
    };
    use crate::ledger::AttemptRow;
    let rows = [
        with(1, Outcome::Pass, None, &|_| {}),
        with(2, Outcome::Pass, Some(1), &|_| {}),
        with(3, Outcome::Pass, Some(3), &|_| {}),
        with(4, Outcome::Fail, Some(3), &|a| {
            a.fault = Some(Fault::Timeout);
            a.exit_code = None;
            a.signal = Some(9);
        }),
        with(5, Outcome::Fail, None, &|a| {
            a.exit_code = Some(0);
            a.check_exit = Some(1);
        }),
        with(6, Outcome::Fail, None, &|a| {
            a.exit_code = Some(0);
            a.check_exit = Some(0);
            a.detail.result.as_mut().unwrap().pass = Some(false);
        }),
    ];
    for row in rows {
        w.append(row).unwrap();
    }
    let mut retry = fixture::attempt("t", 6, 2, Outcome::Pass);
    retry.detail.result = None;
    w.append(Row::Attempt(retry.into())).unwrap();
    let l = Ledger::read(&path).unwrap();
    let r = Report::from_ledgers(&[l], None).unwrap();
    let s = &r.tasks[0].score;
    assert_eq!(s.first_attempt, Share { num: 2, den: 6 });
    // Trial 6 failed its graded attempt 1 and passed attempt 2 (a test runner's retry, as
    // `gate ingest` records it): within the budget, never the grade.
    assert_eq!(s.within_budget, Share { num: 4, den: 6 });
    // Not passed on the first internal attempt: trials 3, 4, 5, 6; trials 3 and 6 recovered.
    assert_eq!(s.recovery, Share { num: 2, den: 4 });
    assert_eq!(
        s.failures,
        FailureShape {
            timeout: 1,
            run_failed: 0,
            check_failed: 1,
            result_fail: 1,
            test_failed: 0,
            other: 0
        }
    );
    assert_eq!(s.latency, Some(Latency { p50: 3.0, p95: 6.0 }));
    assert_eq!(
        s.cost,
        Some(Spend {
            total: 9.0,
            reporting: 6
        })
    );
    assert_eq!(s.tokens, None);
    assert_eq!(s.retry_passes_refused, 1);
}

#[test]
fn cancelled_and_excluded_trials_are_costed_separately() {
    let d = tempfile::tempdir().unwrap();
    let r = Report::from_ledgers(&[fixture::faults(d.path())], None).unwrap();
    let t = &r.tasks[0];
    assert_eq!(t.verdict(), Judgement::Verdict(Verdict::Pass));
    assert_eq!(
        t.cancelled,
        Uncounted {
            trials: 1,
            seconds: 1.5,
            cost: None,
            tokens: None
        }
    );
    // Trial 9: 0.25 × (1 + 9 % 4) seconds, and the fixture's cost of 0.5.
    assert_eq!(t.excluded.trials, 1);
    assert!((t.excluded.seconds - 0.5).abs() < 1e-12);
    assert_eq!(
        t.excluded.cost,
        Some(Spend {
            total: 0.5,
            reporting: 1
        })
    );
    assert_eq!(
        uncounted_text(t).unwrap(),
        "cancelled 1 in flight at the decision (1.50s) · excluded 1 finished after the decision (500ms, cost 0.5)"
    );
    assert_eq!(uncounted_text(&r.tasks[1]), None);
}

#[test]
fn an_observed_unavailable_rate_that_changes_the_risk_is_reported() {
    let d = tempfile::tempdir().unwrap();
    let l = fixture::faults(d.path());
    let r = Report::from_ledgers(std::slice::from_ref(&l), None).unwrap();
    let t = &r.tasks[1];
    let f = t.fault_risk.expect("warning");
    assert_eq!((f.unavailable, f.drawn, f.budget), (3, 30, 4));
    assert_eq!(f.risk, RiskKind::NotPassHealthy);
    // Exactly the rule's OC with the budget at u = 0.1: 27.76% against the 4.21% printed.
    let lattice = Boundaries::single(33, 6).unwrap();
    let at = 1.0 - lattice.oc_unavailable(0.9, 0.1, 4).p_pass;
    assert!((f.at_observed - at).abs() < 1e-15);
    assert!((f.printed - t.alpha.unwrap()).abs() < 1e-12);
    assert_eq!(
        (prob(f.at_observed), prob(f.printed)),
        ("0.2776".into(), "0.0417".into())
    );
    // No unavailable trial: no warning.
    assert_eq!(r.tasks[0].fault_risk, None);
    // Under `on_inconclusive: pass` the risk that grows is the consumer's.
    let r = Report::from_ledgers(&[l], Some(OnInconclusive::Pass)).unwrap();
    let f = r.tasks[1].fault_risk.expect("warning");
    assert_eq!((f.risk, f.rate), (RiskKind::NotFailRegressed, 0.7));
    let fail = |u| lattice.oc_unavailable(0.7, u, 4).p_fail;
    assert!((f.printed - (1.0 - fail(0.0))).abs() < 1e-15);
    assert!((f.at_observed - (1.0 - fail(0.1))).abs() < 1e-15);
}

#[test]
fn a_small_unavailable_rate_is_no_warning() {
    // One unavailable trial in 30 barely moves the risk of a budget of 4.
    let lattice = Boundaries::single(33, 6).unwrap();
    assert_eq!(
        fault_risk(&lattice, 1, 29, 4, RiskKind::NotPassHealthy, 0.9),
        None
    );
    assert!(fault_risk(&lattice, 3, 27, 4, RiskKind::NotPassHealthy, 0.9).is_some());
}

#[test]
fn timeouts_replaced_under_timeout_unavailable_are_counted() {
    let d = tempfile::tempdir().unwrap();
    let r = Report::from_ledgers(&[fixture::faults(d.path())], None).unwrap();
    assert_eq!(r.tasks[1].timeouts_replaced, 1);
    assert_eq!(r.tasks[0].timeouts_replaced, 0);
    let text = r.terminal();
    assert!(
        text.contains("  note       1 timed-out trial was replaced instead of counted as a failure (`timeout: unavailable`): a regression whose failures are slow hides there\n"),
        "{text}"
    );
}

#[test]
fn an_early_stop_is_estimated_on_the_rule_cut_off_there() {
    // Interrupted after 3 of a (10, 1) plan's trials: the rule truncated at 3.
    let d = tempfile::tempdir().unwrap();
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        &[(single("t", 10, 1), outcomes(3, &[2]))],
        None,
    );
    let r = Report::from_ledgers(&[l], None).unwrap();
    let pr = r.tasks[0].pass_rate.unwrap();
    assert_eq!(pr.method, EstimateMethod::StagewiseTruncated);
    let cut = truncated(&Boundaries::single(10, 1).unwrap(), 3).unwrap();
    let e = SampleSpace::new(&cut).estimate(3, 1, CONFIDENCE).unwrap();
    assert_eq!((pr.estimate, pr.ci95), (e.median_unbiased, e.interval));
}

#[test]
fn nearest_rank_percentiles() {
    let l = latency((1..=20).map(f64::from).collect()).unwrap();
    assert_eq!((l.p50, l.p95), (10.0, 19.0));
    assert_eq!(latency(vec![]), None);
    let one = latency(vec![2.5]).unwrap();
    assert_eq!((one.p50, one.p95), (2.5, 2.5));
}

#[test]
fn on_inconclusive_pass_turns_exit_3_into_0() {
    let d = tempfile::tempdir().unwrap();
    let l = fixture::run(
        &d.path().join("l.jsonl"),
        &[(single("t", 10, 1), outcomes(3, &[]))],
        None,
    );
    let r = Report::from_ledgers(std::slice::from_ref(&l), None).unwrap();
    assert_eq!(r.verdict(), Judgement::Verdict(Verdict::Inconclusive));
    assert_eq!(r.exit_code(), crate::exit::INCONCLUSIVE);
    let r = Report::from_ledgers(&[l], Some(OnInconclusive::Pass)).unwrap();
    assert_eq!(r.exit_code(), crate::exit::SUCCESS);
}
