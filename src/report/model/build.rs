//! Computing the report model from a replay: per task the exact OC from its rule's lattice,
//! the stopping-aware pass rate and what follows from it (pass@k, retry settings), the risk at
//! the observed unavailable rate, the score vector and what uncounted trials cost; for the
//! gate, the multiplicity cost.

use crate::ledger::Ledger;
use crate::model::{Fault, OnInconclusive, Outcome, Rates, Sampling};
use crate::stats::estimate::{Interval, clopper_pearson, pass_at_k, pass_hat_k, wilson};
use crate::stats::lattice::{Boundaries, State};
use crate::stats::post_stop::{SampleSpace, truncated};
use crate::stats::zone::Zone;

use super::*;
use crate::report::ReportError;
use crate::report::replay::{TaskReplay, replay};
use crate::report::{compare_task, stages};
use crate::sampler::Disposition;

impl Report {
    /// Compute the report of one run (one ledger) or of the shards of one run.
    /// `on_inconclusive` overrides the recorded policy.
    pub fn from_ledgers(
        ledgers: &[Ledger],
        on_inconclusive: Option<OnInconclusive>,
    ) -> Result<Report, ReportError> {
        stages::check_headers(ledgers)?;
        let mut replay = replay(ledgers)?;
        let stages = stages::status(ledgers, &replay)?;
        let policy = on_inconclusive.unwrap_or(replay.on_inconclusive);
        // The task replays move into the task reports (a large run holds many rows).
        let mut memo = Memo::default();
        // Sized once: collected through a `Result` the vector grew by doubling, and at
        // 1.6 kB a report, 100,000 cases held 50 MB of spare room at the peak (issue 30).
        let replays = std::mem::take(&mut replay.tasks);
        let mut tasks: Vec<TaskReport> = Vec::with_capacity(replays.len());
        for t in replays {
            tasks.push(task_report(t, policy, &mut memo)?);
        }
        let suites = suite_summaries(ledgers, &tasks);
        let suite_of = |t: &TaskReport| {
            let (suite, _) = t.id().split_once('/')?;
            suites.iter().find(|s| s.id == suite)
        };
        let mut known = Vec::new();
        let mut unknown = Vec::new();
        let (mut plain, mut loose) = (0, 0);
        let mut families: Vec<(String, u64, f64)> = Vec::new();
        for t in &tasks {
            // A suite's own row (a suite stopped by a harness error) is not one more task
            // when its cases are here: they carry its risk.
            if t.replay.spec.suite.is_some()
                && tasks
                    .iter()
                    .any(|c| suite_of(c).is_some_and(|s| s.id == t.id()))
            {
                continue;
            }
            let Some(a) = t.alpha else {
                unknown.push(t.id().to_string());
                continue;
            };
            known.push((t.id().to_string(), a));
            match suite_of(t) {
                Some(s) => match s.alpha {
                    Some(fa) if !families.iter().any(|(id, ..)| *id == s.id) => {
                        families.push((s.id.clone(), s.cases, fa));
                    }
                    Some(_) => {}
                    None => loose += 1,
                },
                None => plain += 1,
            }
        }
        let cost =
            (!known.is_empty()).then(|| 1.0 - known.iter().map(|(_, a)| 1.0 - a).product::<f64>());
        Ok(Report {
            suites,
            on_inconclusive: policy,
            replay,
            tasks,
            multiplicity: Multiplicity {
                on_inconclusive: policy,
                cost,
                known,
                unknown,
                tasks: plain,
                cases: loose,
                families,
            },
            exit_override: None,
            every_case: false,
            stages,
        })
    }
}

/// Each suite task of the first header as one family: its cases, the family risk its design
/// guarantees, its suite runs and test-case executions over every ledger given.
fn suite_summaries(ledgers: &[Ledger], tasks: &[TaskReport]) -> Vec<SuiteSummary> {
    let Some(header) = ledgers.first().map(|l| l.header()) else {
        return Vec::new();
    };
    header
        .tasks
        .iter()
        .filter(|t| t.suite.is_some())
        .map(|spec| {
            let (mut runs, mut case_runs) = (0, 0);
            let mut family = None;
            for a in ledgers.iter().flat_map(|l| l.attempts()) {
                if a.task != spec.id {
                    continue;
                }
                if let Some(r) = &a.suite_run {
                    runs += 1;
                    case_runs += r.cases;
                    if family.is_none() {
                        family = r.family.as_ref();
                    }
                }
            }
            let prefix = format!("{}/", spec.id);
            let case_alphas: Vec<Option<f64>> = tasks
                .iter()
                .filter(|t| t.id().starts_with(&prefix))
                .map(|t| t.alpha)
                .collect();
            let cases = family.map_or(case_alphas.len() as u64, |f| f.cases);
            // The guarantee is the design's: every case judged by the family's rule, whose
            // exact risk (under the report's `on_inconclusive`) the replay computed for each
            // case (the same for all).
            let alpha = family.and_then(|f| {
                let worst = case_alphas
                    .iter()
                    .copied()
                    .collect::<Option<Vec<f64>>>()?
                    .into_iter()
                    .fold(0.0f64, f64::max);
                Some(crate::plan::family::family_risk(worst, f.cases))
            });
            SuiteSummary {
                id: spec.id.clone(),
                cases,
                alpha,
                target: family.map(|f| f.alpha),
                runs,
                case_runs,
                compare: spec.compare.is_some(),
                undesigned: family.is_none()
                    && (spec.compare.is_some()
                        || !matches!(
                            (&spec.sampling, &spec.rates),
                            (Sampling::Single { .. }, None)
                        )),
            }
        })
        .collect()
}

/// What the tasks of one rule share: a suite's cases are judged by one rule, and 100,000 of
/// them must not walk its lattice 100,000 times (the OC grid, the zone's bisection and the
/// exact post-stop estimates are the same for every case with the same counts). A figure
/// taken from here is bit for bit the one computed afresh: only pure functions of the rule
/// (and of the counts) are kept.
#[derive(Default)]
struct Memo {
    rules: Vec<RuleFigures>,
}

/// The figures of one rule (its sampling and rates; a compare task's are never shared).
struct RuleFigures {
    sampling: Sampling,
    rates: Option<Rates>,
    lattice: Boundaries,
    alpha: Option<f64>,
    oc: std::sync::Arc<[OcPoint]>,
    zone: Option<Zone>,
    /// The pass rate by (passed, failed).
    pass_rates: std::collections::HashMap<(u64, u64), Option<PassRate>>,
    /// pass@k and the retry settings by (passed, failed): shared by every task with those
    /// counts (a suite's cases mostly have the same few; a list each was 400 bytes a case
    /// at 100,000 cases: issue 30).
    by_counts: std::collections::HashMap<(u64, u64), CountFigures>,
    /// The rule in words (for a task that is not a compare task).
    plan: Option<std::sync::Arc<str>>,
}

/// What a task's report shows that depends only on its rule and its counts.
#[derive(Clone)]
struct CountFigures {
    pass_at: std::sync::Arc<[PassAtK]>,
    retry_settings: std::sync::Arc<[RetrySetting]>,
}

fn task_report(
    replay: Box<TaskReplay>,
    policy: OnInconclusive,
    memo: &mut Memo,
) -> Result<TaskReport, ReportError> {
    let c = replay.counts;
    let graded = c.passed + c.failed;
    let score = score_vector(&replay);
    let sampling = replay.spec.sampling.clone();
    let healthy = healthy_rate(&sampling, replay.spec.rates.as_ref());
    let regressed = replay.spec.rates.map(|r| r.regressed).or(match sampling {
        Sampling::Sequential { regressed, .. } => Some(regressed),
        Sampling::Single { .. } => None,
    });
    let shared = replay.spec.compare.is_none().then(|| {
        memo.rules
            .iter()
            .position(|f| f.sampling == sampling && f.rates == replay.spec.rates)
    });
    let mut fresh = None;
    let figures = match shared {
        Some(Some(i)) => &mut memo.rules[i],
        _ => {
            let f = rule_figures(&replay, policy, healthy, regressed)?;
            if shared.is_some() {
                memo.rules.push(f);
                memo.rules.last_mut().expect("just pushed")
            } else {
                fresh.insert(f)
            }
        }
    };
    let pass_rate = *figures
        .pass_rates
        .entry((c.passed, c.failed))
        .or_insert_with(|| pass_rate(Some(&figures.lattice), c.passed, c.failed));
    let (alpha, oc, zone) = (figures.alpha, figures.oc.clone(), figures.zone);
    let zone_stated = healthy.is_some() && regressed.is_some();
    let CountFigures {
        pass_at,
        retry_settings,
    } = figures
        .by_counts
        .entry((c.passed, c.failed))
        .or_insert_with(|| CountFigures {
            pass_at: pass_at(pass_rate.as_ref(), graded, c.passed).into(),
            retry_settings: (1..=4u64)
                .filter_map(|r| {
                    Some(RetrySetting {
                        retries: r,
                        p_green: pass_rate.map(|pr| at_least_one(pr.estimate, r + 1))?,
                        naive_p_green: pass_at_k(graded, c.passed, r + 1)?,
                    })
                })
                .collect(),
        })
        .clone();
    let lattice: &Boundaries = &figures.lattice;
    let fault_risk = Some(lattice).and_then(|lattice| {
        let (risk, rate) = match policy {
            OnInconclusive::Fail => (RiskKind::NotPassHealthy, healthy?),
            OnInconclusive::Pass => (RiskKind::NotFailRegressed, regressed?),
        };
        fault_risk(
            lattice,
            c.unavailable,
            graded,
            replay.spec.max_unavailable,
            risk,
            rate,
        )
    });
    let uncounted = |d: Disposition| uncounted(&replay, d);
    let (cancelled, excluded) = (
        uncounted(Disposition::Cancelled),
        uncounted(Disposition::Excluded),
    );
    let timeouts_replaced = replay
        .trials
        .iter()
        .filter(|t| t.disposition == Disposition::Counted)
        .filter_map(|t| t.first.as_ref())
        .filter(|a| a.row.outcome == Outcome::Unavailable && a.row.fault == Some(Fault::Timeout))
        .count() as u64;

    // A compare task's θ: the same stopping-aware figures, with the point estimate kept
    // inside (0, 1) so the odds ratio it maps to is finite (`compare_task::win_rate`).
    let win_rate = replay
        .spec
        .compare
        .as_ref()
        .and_then(|_| compare_task::win_rate(lattice, c.passed, c.failed));
    let compare = compare_task::compare_report(&replay, win_rate, lattice).map(Box::new);
    let zone = zone.filter(|_| compare.is_none());
    Ok(TaskReport {
        compare,
        plan: match compare_task::describe(&replay.spec, lattice, policy) {
            Some(words) => words.into(),
            None => figures
                .plan
                .get_or_insert_with(|| sampling.describe().into())
                .clone(),
        },
        graded,
        pass_rate,
        pass_at,
        retry_settings,
        cancelled,
        excluded,
        timeouts_replaced,
        fault_risk,
        score,
        healthy,
        alpha,
        oc,
        zone,
        zone_stated,
        replay,
    })
}

/// The figures of a task's rule: its lattice, exact alpha, OC curve and zone.
fn rule_figures(
    replay: &TaskReplay,
    policy: OnInconclusive,
    healthy: Option<f64>,
    regressed: Option<f64>,
) -> Result<RuleFigures, ReportError> {
    let sampling = &replay.spec.sampling;
    // Every rule's exact OC comes from its lattice (single, Wald or calibrated alike).
    let lattice = sampling.lattice().map_err(|source| ReportError::Sampling {
        task: replay.spec.id.clone(),
        source,
    })?;
    let oc_at = |p: f64| {
        let oc = lattice.oc(p);
        OcPoint {
            p,
            pass: oc.p_pass,
            fail: oc.p_fail,
            inconclusive: oc.p_inconclusive,
        }
    };
    // What turns the gate red for a healthy agent: any non-PASS, or only a FAIL when an
    // INCONCLUSIVE passes the gate.
    // A compare task's is stated with its `max_pairs` truncation (`report::compare_task::alpha`).
    let alpha = super::super::compare_task::alpha(&replay.spec, &lattice, policy).or_else(|| {
        healthy.map(|h| {
            let o = oc_at(h);
            match policy {
                OnInconclusive::Fail => 1.0 - o.pass,
                OnInconclusive::Pass => o.fail,
            }
        })
    });
    let oc = oc_curve(healthy, regressed, oc_at).into();
    let zone = match (healthy, regressed) {
        (Some(h), Some(r)) => Zone::of(&lattice, r, h),
        _ => Zone::unstated(&lattice),
    };
    Ok(RuleFigures {
        sampling: sampling.clone(),
        rates: replay.spec.rates,
        lattice,
        alpha,
        oc,
        zone,
        pass_rates: Default::default(),
        by_counts: Default::default(),
        plan: None,
    })
}

/// The pass rate after the rule stopped at (graded, failed): stopping-aware when the state is
/// one the rule (or the rule truncated there) ends in, else fixed-n.
fn pass_rate(rule: Option<&Boundaries>, passed: u64, failed: u64) -> Option<PassRate> {
    let graded = passed + failed;
    let naive = NaivePassRate {
        estimate: passed as f64 / graded as f64,
        wilson: wilson(passed, graded, CONFIDENCE)?,
        clopper_pearson: clopper_pearson(passed, graded, CONFIDENCE)?,
    };
    let stopped = rule.and_then(|rule| {
        if rule.decide(graded, failed) != State::Continue {
            let e = SampleSpace::new(rule).estimate(graded, failed, CONFIDENCE)?;
            return Some((e, EstimateMethod::Stagewise));
        }
        // Stopped before the rule decided: condition on where it stopped.
        let cut = truncated(rule, graded)?;
        let e = SampleSpace::new(&cut).estimate(graded, failed, CONFIDENCE)?;
        Some((e, EstimateMethod::StagewiseTruncated))
    });
    Some(match stopped {
        Some((e, method)) => PassRate {
            estimate: e.median_unbiased,
            ci95: e.interval,
            method,
            naive,
        },
        None => PassRate {
            estimate: naive.estimate,
            ci95: naive.clopper_pearson,
            method: EstimateMethod::FixedN,
            naive,
        },
    })
}

/// P(at least one of k passes) at per-trial rate p.
fn at_least_one(p: f64, k: u64) -> f64 {
    1.0 - (1.0 - p).powf(k as f64)
}

/// pass@k and pass^k for k = 1, 3 (and 5 once 5 trials are graded): from the stopping-aware
/// pass rate (monotone maps keep median-unbiasedness and interval coverage), with the
/// combinatorial estimators alongside. Fixed-n: the combinatorial ones are unbiased there.
fn pass_at(rate: Option<&PassRate>, graded: u64, passed: u64) -> Vec<PassAtK> {
    let Some(rate) = rate else {
        return Vec::new();
    };
    let mut ks = vec![1, 3];
    if graded >= 5 {
        ks.push(5);
    }
    ks.into_iter()
        .filter_map(|k| {
            let naive_at = pass_at_k(graded, passed, k)?;
            let naive_hat = pass_hat_k(graded, passed, k)?;
            let kf = k as f64;
            let (at, hat) = match rate.method {
                EstimateMethod::FixedN => (naive_at, naive_hat),
                _ => (at_least_one(rate.estimate, k), rate.estimate.powf(kf)),
            };
            Some(PassAtK {
                k,
                pass_at_k: at,
                pass_hat_k: hat,
                pass_at_k_ci95: Interval {
                    lo: at_least_one(rate.ci95.lo, k),
                    hi: at_least_one(rate.ci95.hi, k),
                },
                pass_hat_k_ci95: Interval {
                    lo: rate.ci95.lo.powf(kf),
                    hi: rate.ci95.hi.powf(kf),
                },
                naive: NaivePassAtK {
                    pass_at_k: naive_at,
                    pass_hat_k: naive_hat,
                },
            })
        })
        .collect()
}

/// The risk at the observed unavailable rate, when it makes the printed one wrong.
pub(super) fn fault_risk(
    lattice: &Boundaries,
    unavailable: u64,
    graded: u64,
    budget: u64,
    risk: RiskKind,
    rate: f64,
) -> Option<FaultRisk> {
    if unavailable == 0 {
        return None;
    }
    let drawn = unavailable + graded;
    let u = unavailable as f64 / drawn as f64;
    // An unavailable rate of 1 leaves nothing to grade: the risk is certain.
    // The risk is one minus the probability of the verdict that keeps the gate right.
    let kept = |u: f64| {
        if u >= 1.0 {
            return 0.0;
        }
        let oc = lattice.oc_unavailable(rate, u, budget);
        match risk {
            RiskKind::NotPassHealthy => oc.p_pass,
            RiskKind::NotFailRegressed => oc.p_fail,
        }
    };
    let (printed, at_observed) = (1.0 - kept(0.0), 1.0 - kept(u));
    let gap = at_observed - printed;
    let wrong = gap >= FAULT_RISK_GAP
        || (at_observed >= printed * FAULT_RISK_FACTOR && gap >= FAULT_RISK_MIN_GAP);
    wrong.then_some(FaultRisk {
        unavailable,
        drawn,
        budget,
        risk,
        rate,
        printed,
        at_observed,
    })
}

/// The trials of one disposition and what they cost (every attempt of each).
fn uncounted(t: &TaskReplay, which: Disposition) -> Uncounted {
    let mut out = Uncounted::default();
    for trial in t.trials.iter().filter(|tr| tr.disposition == which) {
        out.trials += 1;
        out.seconds += trial.duration_s();
        for a in trial.first.iter().chain(trial.later.iter()) {
            let Some(r) = &a.row.detail.result else {
                continue;
            };
            Spend::add(&mut out.cost, r.cost);
            Spend::add(&mut out.tokens, r.tokens);
        }
    }
    out
}

/// The healthy rate a plan's producer's risk is stated at: the designed rates, or a
/// sequential rule's own p0. A bare `single: {n, c}` has none.
fn healthy_rate(sampling: &Sampling, rates: Option<&Rates>) -> Option<f64> {
    rates.map(|r| r.healthy).or(match *sampling {
        Sampling::Sequential { healthy, .. } => Some(healthy),
        Sampling::Single { .. } => None,
    })
}

/// The OC on a fixed grid of rates plus the plan's own healthy and regressed rates, from the
/// last rate where P(PASS) is still below 0.0005 (the curve left of it is flat at zero).
fn oc_curve(
    healthy: Option<f64>,
    regressed: Option<f64>,
    oc_at: impl Fn(f64) -> OcPoint,
) -> Vec<OcPoint> {
    let mut ps: Vec<f64> = (1..=19).map(|i| f64::from(i) * 0.05).collect();
    ps.push(0.99);
    ps.extend(healthy.into_iter().chain(regressed));
    ps.retain(|p| p.is_finite() && *p > 0.0 && *p < 1.0);
    // Round to 4 decimals so a designed 0.9 and the grid's 0.9000000000000001 are one point.
    let mut ps: Vec<f64> = ps.into_iter().map(|p| (p * 1e4).round() / 1e4).collect();
    ps.sort_by(f64::total_cmp);
    ps.dedup();
    let points: Vec<OcPoint> = ps.into_iter().map(oc_at).collect();
    let start = points.iter().rposition(|pt| pt.pass < 0.0005).unwrap_or(0);
    points[start..].to_vec()
}

fn score_vector(t: &TaskReplay) -> ScoreVector {
    let mut first_attempt = 0;
    let mut passed = 0;
    let mut graded = 0;
    let mut internal_attempts = 0;
    let mut failures = FailureShape::default();
    let mut durations = Vec::new();
    let counted = t
        .trials
        .iter()
        .filter(|tr| tr.disposition == Disposition::Counted);
    for (row, later) in counted.filter_map(|tr| tr.first.as_ref().map(|a| (&a.row, &tr.later))) {
        match row.outcome {
            Outcome::Pass => {
                graded += 1;
                passed += 1;
                let internal = row.detail.result.as_ref().and_then(|r| r.attempts);
                if internal.is_none_or(|a| a <= 1) {
                    first_attempt += 1;
                } else {
                    internal_attempts += 1;
                }
                durations.push(row.duration_s);
            }
            Outcome::Fail => {
                graded += 1;
                durations.push(row.duration_s);
                // A later attempt after a graded failure is a test runner's retry (`gate
                // ingest`; gate's own transport retries follow only unavailable attempts): it
                // passes within the retry budget, never as the grade.
                if later.iter().any(|a| a.row.outcome == Outcome::Pass) {
                    passed += 1;
                }
                let internal = row.detail.result.as_ref().and_then(|r| r.attempts);
                if !later.is_empty() || internal.is_some_and(|a| a > 1) {
                    internal_attempts += 1;
                }
                if row.fault == Some(Fault::Timeout) {
                    failures.timeout += 1;
                } else if row.exit_code.is_none() && row.signal.is_none() && row.fault.is_none() {
                    failures.test_failed += 1;
                } else if row.exit_code != Some(0) {
                    failures.run_failed += 1;
                } else if row.check_exit.is_some_and(|c| c != 0) {
                    failures.check_failed += 1;
                } else if row.detail.result.as_ref().and_then(|r| r.pass) == Some(false) {
                    failures.result_fail += 1;
                } else {
                    failures.other += 1;
                }
            }
            _ => {}
        }
    }

    let mut cost = None::<Spend>;
    let mut tokens = None::<Spend>;
    for trial in &t.trials {
        for a in trial.first.iter().chain(trial.later.iter()) {
            let Some(r) = &a.row.detail.result else {
                continue;
            };
            Spend::add(&mut cost, r.cost);
            Spend::add(&mut tokens, r.tokens);
        }
    }

    ScoreVector {
        first_attempt: Share {
            num: first_attempt,
            den: graded,
        },
        within_budget: Share {
            num: passed,
            den: graded,
        },
        recovery: Share {
            num: passed - first_attempt,
            den: graded - first_attempt,
        },
        failures,
        latency: latency(durations),
        cost,
        tokens,
        unavailable: t.counts.unavailable,
        retry_passes_refused: t.retry_passes_refused,
        internal_attempts,
    }
}

/// Nearest-rank percentiles: the smallest value with at least q of the values at or below it.
pub(super) fn latency(mut xs: Vec<f64>) -> Option<Latency> {
    xs.retain(|x| x.is_finite());
    if xs.is_empty() {
        return None;
    }
    xs.sort_by(f64::total_cmp);
    let rank = |q: f64| {
        let r = (q * xs.len() as f64).ceil() as usize;
        xs[r.clamp(1, xs.len()) - 1]
    };
    Some(Latency {
        p50: rank(0.50),
        p95: rank(0.95),
    })
}
