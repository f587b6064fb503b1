//! Staged (group-sequential) rules: a sequential test that looks at the data only after each
//! **stage** of B trials, so every stage can run as a matrix of shards in parallel.
//!
//! A staged rule is an ordinary [`Boundaries`] lattice whose rows decide only at the stage
//! ends B, 2B, …, and at `max_trials` (a last, shorter stage when `max_trials` is not a
//! multiple of B); every other row has both bounds `None`, which means "continue". So the
//! sampler, the exact OC and ASN of [`super::lattice`], the published `lattice[]` and the
//! stopping-aware estimates of [`super::post_stop`] all apply unchanged, and everything a
//! staged run publishes recomputes from the lattice alone. All the trials of a stage run, so
//! the ASN is also the expected number of trials launched, and the expected number of stages
//! (the wall-time proxy: one stage is one round of parallel jobs) is E[⌈T / B⌉] at the stop T.
//!
//! Three staged rules:
//! - [`design_staged`], the default: the calibrated design of [`super::calibrated`], whose
//!   backward induction looks only at the stage ends here (Jennison & Turnbull 2000, ch. 7,
//!   "optimal group sequential tests"): at a stage end with likelihood ratio Λ the value is
//!   `min(λ1 Λ, λ0, d (1 + Λ) + Σ_j C(d, j) p0^(d-j) q0^j r(t + d, f + j))`, where d is the
//!   next stage's length (all d trials run whatever they show). The multipliers are tuned
//!   until the EXACT risks of the forward DP meet the request; the curtailed single plan
//!   looked at only at stage ends (same OC as the single plan) is always a candidate, so the
//!   design never breaks its risks.
//! - [`wald_staged`]: Wald's thresholds applied only at stage ends (no promise on the risks,
//!   as for Wald's fully sequential test).
//! - [`at_stage_ends`] of any lattice: the same rule looked at only at stage ends.

use std::collections::BTreeMap;

use super::calibrated::{Looks, Problem, tune};
use super::lattice::{Boundaries, LatticeRow, Oc, State, Sum};
use super::{StatsError, design};

/// Most trials per stage: a stage is one round of parallel jobs, and far more than any CI
/// matrix runs at once.
pub const MAX_STAGE: u64 = 10_000;

/// The stage that graded trial (or ordinal) `t` belongs to: 1 for 1..=B, 2 for B+1..=2B, ….
pub fn stage_of(stage: u64, t: u64) -> u64 {
    t.saturating_sub(1) / stage.max(1) + 1
}

/// Whether trial `t` ends a stage of this staged rule.
fn is_stage_end(stage: u64, max_trials: u64, t: u64) -> bool {
    t == max_trials || t.is_multiple_of(stage.max(1))
}

/// Validate a stage length and truncation: 1 <= B <= [`MAX_STAGE`], and max_trials >= 1.
pub fn check_stage(stage: u64) -> Result<(), StatsError> {
    if stage == 0 || stage > MAX_STAGE {
        return Err(StatsError::OutOfRange {
            name: "stage",
            range: "between 1 and 10000",
            value: stage as f64,
        });
    }
    Ok(())
}

/// The same rule looked at only at the stage ends: rows elsewhere become "continue".
pub fn at_stage_ends(rule: &Boundaries, stage: u64) -> Boundaries {
    let m = rule.max_trials();
    Boundaries::new(
        rule.rows()
            .iter()
            .map(|r| {
                if is_stage_end(stage, m, r.trials) {
                    *r
                } else {
                    LatticeRow {
                        trials: r.trials,
                        pass_max_failures: None,
                        fail_min_failures: None,
                    }
                }
            })
            .collect(),
    )
    .expect("dropping bounds from a valid lattice leaves a valid lattice")
}

/// Wald's truncated SPRT consulted only at the stage ends.
pub fn wald_staged(sprt: &super::sprt::Sprt, stage: u64) -> Boundaries {
    at_stage_ends(&Boundaries::wald(sprt), stage)
}

/// Whether a lattice decides only at the stage ends of `stage` (a valid staged rule).
pub fn is_staged(rule: &Boundaries, stage: u64) -> bool {
    let m = rule.max_trials();
    rule.rows().iter().all(|r| {
        is_stage_end(stage, m, r.trials)
            || (r.pass_max_failures.is_none() && r.fail_min_failures.is_none())
    })
}

/// Expected stages run at success rate `p` (NaN outside [0, 1]): E[⌈T / B⌉] at the stop T.
pub fn expected_stages(rule: &Boundaries, stage: u64, p: f64) -> f64 {
    if !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    let mut sum = Sum::default();
    for t in rule.terminals(p) {
        sum.add(t.prob * stage_of(stage, t.trials) as f64);
    }
    sum.value()
}

/// One task of a staged run of several tasks: its rule, its trials per stage (a single
/// plan's n), and the success rate to evaluate at.
#[derive(Debug, Clone, Copy)]
pub struct RunTask<'a> {
    /// The task's rule.
    pub rule: &'a Boundaries,
    /// Its trials per stage.
    pub stage: u64,
    /// Its true success rate.
    pub p: f64,
}

/// Exact figures of a staged run of independent tasks (see [`run_figures`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RunFigures {
    /// P(the gate PASSes): every task PASSes.
    pub p_pass: f64,
    /// P(the gate FAILs): some task FAILs.
    pub p_fail: f64,
    /// Expected stages the run takes.
    pub expected_stages: f64,
}

/// The exact verdict probabilities and expected stages of a staged run of several
/// independent tasks, each running its stages until it decides. The run stops after the
/// first stage in which a task FAILs (the gate's FAIL is then certain: later stages would
/// only cost trials) or once every task has decided. Stopping at a FAIL changes no verdict
/// — the gate FAILs exactly when some task's rule would — only the stages: the stage of the
/// first FAIL when there is one, else the last task's decision stage. By a DP over the
/// tasks on (latest decision stage, earliest FAIL stage), from each rule's exact terminal
/// distribution.
pub fn run_figures(tasks: &[RunTask]) -> RunFigures {
    // (latest decision stage, earliest FAIL stage or u64::MAX) → probability.
    let mut joint: BTreeMap<(u64, u64), f64> = BTreeMap::from([((0, u64::MAX), 1.0)]);
    let (mut p_pass, mut p_not_fail) = (1.0f64, 1.0f64);
    for t in tasks {
        let mut by_stage: BTreeMap<(u64, bool), f64> = BTreeMap::new();
        let oc = t.rule.oc(t.p);
        p_pass *= oc.p_pass;
        p_not_fail *= 1.0 - oc.p_fail;
        for term in t.rule.terminals(t.p) {
            let fail = term.state == State::Fail;
            *by_stage
                .entry((stage_of(t.stage, term.trials), fail))
                .or_default() += term.prob;
        }
        let mut next: BTreeMap<(u64, u64), f64> = BTreeMap::new();
        for (&(latest, first_fail), &a) in &joint {
            for (&(d, fail), &b) in &by_stage {
                let key = (
                    latest.max(d),
                    if fail { first_fail.min(d) } else { first_fail },
                );
                *next.entry(key).or_default() += a * b;
            }
        }
        joint = next;
    }
    let mut stages = Sum::default();
    for (&(latest, first_fail), &w) in &joint {
        stages.add(w * first_fail.min(latest) as f64);
    }
    RunFigures {
        p_pass,
        p_fail: 1.0 - p_not_fail,
        expected_stages: stages.value(),
    }
}

/// A staged design and its exact risks.
#[derive(Debug, Clone, PartialEq)]
pub struct Staged {
    /// Trials per stage.
    pub stage: u64,
    /// The rule: decisions only at stage ends.
    pub boundaries: Boundaries,
    /// Exact OC at the healthy rate.
    pub at_healthy: Oc,
    /// Exact OC at the regressed rate.
    pub at_regressed: Oc,
}

impl Staged {
    /// Stages the rule can run at most.
    pub fn max_stages(&self) -> u64 {
        stage_of(self.stage, self.boundaries.max_trials())
    }
}

/// The truncation of a staged rule: `max_trials` if given, else `max_stages` × B, else twice
/// the equal-risk single plan's n rounded up to whole stages; the smaller when both are given.
pub fn staged_max_trials(
    single_n: Option<u64>,
    stage: u64,
    max_trials: Option<u64>,
    max_stages: Option<u64>,
) -> Option<u64> {
    let by_stages = max_stages.map(|s| s.saturating_mul(stage));
    match (max_trials, by_stages) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (Some(a), None) | (None, Some(a)) => Some(a),
        (None, None) => single_n.map(|n| (2 * n).div_ceil(stage) * stage),
    }
}

/// Design the calibrated staged rule: decisions only after every `stage` trials, truncated
/// at `max_trials` (see [`staged_max_trials`] for the default). The rule found may end
/// sooner: the single-plan fallback ends at its n (a last, shorter stage).
///
/// Exactly, P(not PASS | healthy) <= alpha and P(PASS | regressed) <= beta. Errors on invalid
/// inputs, or when no staged rule within `max_trials` meets both risks.
pub fn design_staged(
    healthy: f64,
    regressed: f64,
    alpha: f64,
    beta: f64,
    stage: u64,
    max_trials: Option<u64>,
) -> Result<Staged, StatsError> {
    super::check_rule_rates(healthy, regressed, alpha, beta)?;
    check_stage(stage)?;
    let single = design::design_single(healthy, regressed, alpha, beta);
    let max_trials = match (max_trials, &single) {
        (Some(m), _) => m,
        (None, Ok(s)) => staged_max_trials(Some(s.n), stage, None, None).unwrap_or(s.n),
        (None, Err(e)) => return Err(e.clone()),
    };
    super::check_trials("max_trials", max_trials)?;
    let problem = Problem::new(healthy, regressed, max_trials);
    // The curtailed single plan at stage ends keeps the single plan's OC: feasible.
    let fallback = single
        .as_ref()
        .ok()
        .filter(|s| s.n <= max_trials)
        .and_then(|s| Boundaries::single(s.n, s.c).ok())
        .map(|b| at_stage_ends(&b, stage));
    let c = tune(
        (healthy, regressed, alpha, beta),
        max_trials,
        fallback,
        None,
        |l0, l1| problem.rule(Looks::Stages(stage), l0, l1),
    )?;
    Ok(Staged {
        stage,
        boundaries: c.boundaries,
        at_healthy: c.at_healthy,
        at_regressed: c.at_regressed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::calibrated::binomial_row;
    use crate::stats::lattice::single_oc;
    use crate::stats::sprt::Sprt;

    /// The exact OC by an independent recomputation from the published rows: a DP over the
    /// stage ends only, moving the mass with binomial stage increments (not the trial-by-trial
    /// walk of [`Boundaries::oc`]). Returns (P(PASS), P(FAIL), P(INCONCLUSIVE), E[trials],
    /// E[stages]).
    fn by_stages(b: &Boundaries, stage: u64, p: f64) -> [f64; 5] {
        let rows = b.rows();
        let m = b.max_trials();
        let mut mass = vec![1.0f64]; // P(f failures and still undecided), f = 0..=t
        let (mut t, mut k) = (0u64, 0u64);
        let mut out = [0.0; 5];
        while t < m {
            let d = (stage - t % stage).min(m - t);
            let w = binomial_row(d, 1.0 - p);
            let mut next = vec![0.0f64; mass.len() + d as usize];
            for (f, &x) in mass.iter().enumerate() {
                for (j, &y) in w.iter().enumerate() {
                    next[f + j] += x * y;
                }
            }
            t += d;
            k += 1;
            let row = rows[(t - 1) as usize];
            for (f, x) in next.iter_mut().enumerate() {
                let f = f as u64;
                let slot = if row.pass_max_failures.is_some_and(|a| f <= a) {
                    Some(0)
                } else if row.fail_min_failures.is_some_and(|r| f >= r) {
                    Some(1)
                } else if t == m {
                    Some(2)
                } else {
                    None
                };
                if let Some(s) = slot {
                    out[s] += *x;
                    out[3] += *x * t as f64;
                    out[4] += *x * k as f64;
                    *x = 0.0;
                }
            }
            mass = next;
        }
        out
    }

    fn close(x: f64, y: f64) -> bool {
        (x - y).abs() <= 1e-10 * y.abs().max(1.0)
    }

    #[test]
    fn looks_stage_numbers_and_truncations() {
        // The looks: B, 2B, … below max_trials, then max_trials.
        let b = Problem::new(0.9, 0.7, 25).rule(Looks::Stages(10), 1e3, 1e3);
        let decides = |r: &&LatticeRow| r.pass_max_failures.or(r.fail_min_failures).is_some();
        let looks: Vec<u64> = b.rows().iter().filter(decides).map(|r| r.trials).collect();
        assert_eq!(looks, [10, 20, 25]);
        assert_eq!(
            (stage_of(10, 1), stage_of(10, 10), stage_of(10, 11)),
            (1, 1, 2)
        );
        assert_eq!(staged_max_trials(Some(33), 10, None, None), Some(70));
        assert_eq!(staged_max_trials(None, 10, Some(45), Some(3)), Some(30));
        assert!(check_stage(0).is_err() && check_stage(MAX_STAGE + 1).is_err());
    }

    #[test]
    fn the_single_plan_at_stage_ends_keeps_its_oc() {
        let b = at_stage_ends(&Boundaries::single(33, 6).unwrap(), 9);
        assert!(is_staged(&b, 9));
        for p in [0.5, 0.7, 0.8, 0.9] {
            let got = b.oc(p);
            assert!(close(got.p_pass, single_oc(33, 6, p).p_pass));
            // Deciding later can only cost trials: at least the curtailed ASN.
            assert!(got.asn >= single_oc(33, 6, p).asn - 1e-12);
        }
    }

    #[test]
    fn ninety_versus_seventy_in_stages_of_nine() {
        let d = design_staged(0.9, 0.7, 0.05, 0.10, 9, None).unwrap();
        assert!(is_staged(&d.boundaries, 9));
        assert!(1.0 - d.at_healthy.p_pass <= 0.05 && d.at_regressed.p_pass <= 0.10);
        let full = crate::stats::calibrated::design_calibrated(0.9, 0.7, 0.05, 0.10, None).unwrap();
        // Fewer looks cost trials but far fewer rounds than one trial at a time.
        assert!(d.at_healthy.asn >= full.at_healthy.asn - 1e-9);
        let stages = expected_stages(&d.boundaries, 9, 0.9);
        assert!(stages < d.at_healthy.asn / 4.0, "{stages}");
        // And never more trials, in total, than the single plan at stage ends it can fall
        // back on.
        let single = at_stage_ends(&Boundaries::single(33, 6).unwrap(), 9);
        let total = |b: &Boundaries| b.oc(0.9).asn + b.oc(0.7).asn;
        assert!(total(&d.boundaries) <= total(&single) + 1e-9);
        eprintln!(
            "staged ASN {:.2}/{:.2}, stages {:.2}/{:.2}; full {:.2}/{:.2}",
            d.at_healthy.asn,
            d.at_regressed.asn,
            stages,
            expected_stages(&d.boundaries, 9, 0.7),
            full.at_healthy.asn,
            full.at_regressed.asn
        );
    }

    #[test]
    fn a_stage_of_one_is_the_fully_sequential_design() {
        let d = design_staged(0.9, 0.7, 0.05, 0.10, 1, Some(40)).unwrap();
        let full =
            crate::stats::calibrated::design_calibrated(0.9, 0.7, 0.05, 0.10, Some(40)).unwrap();
        // Same problem, same search; the two may settle on neighbouring multipliers.
        let (a, b) = (
            d.at_healthy.asn + d.at_regressed.asn,
            full.at_healthy.asn + full.at_regressed.asn,
        );
        assert!((a - b).abs() < 0.05 * b, "{a} vs {b}");
    }

    #[test]
    fn wald_at_stage_ends_is_a_staged_rule() {
        let sprt = Sprt::new(0.9, 0.7, 0.05, 0.10, 66).unwrap();
        let b = wald_staged(&sprt, 11);
        assert!(is_staged(&b, 11));
        assert!(!is_staged(&Boundaries::wald(&sprt), 11));
        let [pass, fail, inc, asn, stages] = by_stages(&b, 11, 0.8);
        let oc = b.oc(0.8);
        assert!(close(oc.p_pass, pass) && close(oc.p_fail, fail) && close(oc.p_inconclusive, inc));
        assert!(close(oc.asn, asn) && close(expected_stages(&b, 11, 0.8), stages));
    }

    /// Two tasks' run figures against a direct sum over every pair of their terminals.
    #[test]
    fn run_figures_of_two_tasks_recompute_from_every_pair_of_terminals() {
        let a = design_staged(0.9, 0.7, 0.05, 0.10, 9, None)
            .unwrap()
            .boundaries;
        let b = at_stage_ends(&Boundaries::single(12, 2).unwrap(), 12);
        for (pa, pb) in [(0.9, 0.9), (0.75, 0.95), (0.6, 0.8)] {
            let got = run_figures(&[
                RunTask {
                    rule: &a,
                    stage: 9,
                    p: pa,
                },
                RunTask {
                    rule: &b,
                    stage: 12,
                    p: pb,
                },
            ]);
            let (mut pass, mut fail, mut stages) = (0.0, 0.0, 0.0);
            for x in a.terminals(pa) {
                for y in b.terminals(pb) {
                    let w = x.prob * y.prob;
                    let (dx, dy) = (stage_of(9, x.trials), stage_of(12, y.trials));
                    let fails: Vec<u64> = [(x.state, dx), (y.state, dy)]
                        .iter()
                        .filter(|(s, _)| *s == State::Fail)
                        .map(|&(_, d)| d)
                        .collect();
                    if x.state == State::Pass && y.state == State::Pass {
                        pass += w;
                    }
                    if !fails.is_empty() {
                        fail += w;
                    }
                    stages += w * fails.iter().copied().min().unwrap_or(dx.max(dy)) as f64;
                }
            }
            assert!(
                close(got.p_pass, pass) && close(got.p_fail, fail),
                "{got:?}"
            );
            assert!(close(got.expected_stages, stages), "{got:?} vs {stages}");
            // One task alone: its own expected stages.
            let one = run_figures(&[RunTask {
                rule: &a,
                stage: 9,
                p: pa,
            }]);
            assert!(close(one.expected_stages, expected_stages(&a, 9, pa)));
        }
    }

    #[test]
    fn a_truncation_too_short_is_an_error() {
        assert!(matches!(
            design_staged(0.9, 0.7, 0.05, 0.10, 4, Some(8)),
            Err(StatsError::NoSequential { .. })
        ));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(16))]

        /// The exact OC, expected trials and expected stages of a designed staged rule agree
        /// with an independent stage-by-stage recomputation from its published rows, and the
        /// realised risks never exceed the request.
        #[test]
        fn staged_oc_recomputes_from_the_lattice_and_keeps_the_risks(
            healthy in 0.65f64..0.97,
            gap in 0.15f64..0.35,
            alpha in 0.03f64..0.2,
            beta in 0.03f64..0.2,
            stage in 1u64..15,
            p in 0.0f64..1.0,
        ) {
            let regressed = healthy - gap;
            proptest::prop_assume!(regressed > 0.1);
            let d = design_staged(healthy, regressed, alpha, beta, stage, None).unwrap();
            // Read back through the published (compact JSON) form, as an auditor would.
            let json = serde_json::to_string(&d.boundaries).unwrap();
            let b: Boundaries = serde_json::from_str(&json).unwrap();
            proptest::prop_assert!(is_staged(&b, stage));
            for rate in [healthy, regressed, p] {
                let oc = b.oc(rate);
                let [pass, fail, inc, asn, stages] = by_stages(&b, stage, rate);
                proptest::prop_assert!(close(oc.p_pass, pass), "{rate}: {oc:?} vs {pass}");
                proptest::prop_assert!(close(oc.p_fail, fail), "{rate}: {oc:?} vs {fail}");
                proptest::prop_assert!(close(oc.p_inconclusive, inc));
                proptest::prop_assert!(close(oc.asn, asn));
                proptest::prop_assert!(close(expected_stages(&b, stage, rate), stages));
            }
            proptest::prop_assert!(1.0 - b.oc(healthy).p_pass <= alpha);
            proptest::prop_assert!(b.oc(regressed).p_pass <= beta);
        }
    }
}
