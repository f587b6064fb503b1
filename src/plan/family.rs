//! A suite task's test cases as one family: the per-case rule that keeps the whole suite's
//! false-alarm risk within alpha.
//!
//! A suite of K test cases, each judged at alpha, goes red when *any* case is not PASS: for
//! K healthy independent cases that is 1 − (1 − alpha)^K (0.92 for 50 cases at 5%). The
//! number of cases K is known once the first suite run is read, and does not depend on any
//! outcome, so each case may be designed at Šidák's share `1 − (1 − alpha)^(1/K)` of the
//! suite's alpha, with its own beta unchanged (each case keeps its power). The guarantee, for
//! independent cases each at or above the healthy rate: P(the suite is not PASS) =
//! 1 − ∏ P(case i PASS) ≤ 1 − (1 − a_case)^K ≤ alpha, where a_case is the case rule's EXACT
//! P(not PASS | healthy) (docs/statistics.md, "A suite is a family").
//!
//! The design here is pure; [`crate::runner::suite`] calls it once K is known and records the
//! result in the ledger ([`crate::ledger::Family`], on the suite run that fixed K), so a
//! replay judges the cases with exactly the rule that ran.

use crate::ledger::Family;
use crate::model::{Rates, Sampling, SequentialRule};
use crate::stats;

/// Šidák's share of `alpha` for each of `k` tests: `1 − (1 − alpha)^(1/k)`, as
/// `−expm1(ln_1p(−alpha) / k)` so a small alpha keeps its precision.
pub fn sidak(alpha: f64, k: u64) -> f64 {
    -((-alpha).ln_1p() / k.max(1) as f64).exp_m1()
}

/// The family risk a per-case rule with exact producer's risk `case_risk` guarantees over
/// `k` independent cases: `1 − (1 − case_risk)^k`.
pub fn family_risk(case_risk: f64, k: u64) -> f64 {
    -((-case_risk).ln_1p() * k as f64).exp_m1()
}

/// The most cases a family at suite alpha `alpha` can share it among: the largest K whose
/// Šidák share is at least [`stats::MIN_RULE_RISK`] (about 51 million at 5%).
pub fn max_cases(alpha: f64) -> u64 {
    // ln(1 − alpha) / ln(1 − floor), rounded down, then stepped to the exact edge.
    let mut k = ((-alpha).ln_1p() / (-stats::MIN_RULE_RISK).ln_1p()).floor() as u64;
    while k > 1 && sidak(alpha, k) < stats::MIN_RULE_RISK {
        k -= 1;
    }
    while sidak(alpha, k + 1) >= stats::MIN_RULE_RISK {
        k += 1;
    }
    k.max(1)
}

/// The family design of a suite task judged by `sampling` (designed for `rates`, if the
/// plan gave them) once its first run recorded `cases` test cases.
///
/// `Ok(None)` when the rule states no healthy rate (a fixed `single: {n, c}`): its alpha is
/// unknown, so there is nothing to share, and each case keeps the plan's rule. With one
/// case the family is the case, and its rule is the plan's. An error says why no rule at the
/// share exists (a share below the one-in-a-billion floor, [`stats::MIN_RULE_RISK`],
/// past [`max_cases`] cases; a truncation too short).
pub fn design(
    sampling: &Sampling,
    rates: Option<&Rates>,
    cases: u64,
) -> Result<Option<Family>, String> {
    let cases = cases.max(1);
    let (healthy, regressed, alpha, beta) = match (sampling, rates) {
        (
            Sampling::Sequential {
                healthy,
                regressed,
                alpha,
                beta,
                ..
            },
            _,
        ) => (*healthy, *regressed, *alpha, *beta),
        (Sampling::Single { .. }, Some(r)) => (r.healthy, r.regressed, r.alpha, r.beta),
        (Sampling::Single { .. }, None) => return Ok(None),
    };
    let case_alpha = sidak(alpha, cases);
    if cases == 1 {
        return Ok(Some(Family {
            cases,
            alpha,
            case_alpha,
            sampling: sampling.clone(),
            pairs: None,
        }));
    }
    if case_alpha < stats::MIN_RULE_RISK {
        return Err(format!(
            "{cases} test cases at a suite alpha of {alpha} give each case an alpha of {case_alpha:.2e} \
             (Šidák), below the minimum of 0.000000001 (one in a billion; at most {} cases at this alpha); raise the suite's alpha or split the suite",
            max_cases(alpha)
        ));
    }
    let err = |e: stats::StatsError| {
        format!(
            "cannot design each of {cases} test cases at alpha {case_alpha:.6} (Šidák share of {alpha}): {e}"
        )
    };
    // The truncation at the share: the default one there, never shorter than the plan's.
    let max_at_share = |plan_max: u64| {
        stats::sprt::default_max_trials(healthy, regressed, case_alpha, beta)
            .map(|m| m.max(plan_max))
            .map_err(err)
    };
    let case_sampling = match sampling {
        Sampling::Single { .. } => {
            let d =
                stats::design::design_single(healthy, regressed, case_alpha, beta).map_err(err)?;
            Sampling::Single { n: d.n, c: d.c }
        }
        Sampling::Sequential {
            max_trials, rule, ..
        } => {
            let calibrated = |max: u64| -> Result<Sampling, String> {
                let d = stats::calibrated::design_calibrated(
                    healthy,
                    regressed,
                    case_alpha,
                    beta,
                    Some(max),
                )
                .map_err(err)?;
                Ok(Sampling::Sequential {
                    healthy,
                    regressed,
                    alpha: case_alpha,
                    beta,
                    max_trials: max,
                    rule: SequentialRule::Calibrated {
                        lattice: d.boundaries,
                    },
                })
            };
            match rule {
                SequentialRule::Calibrated { .. } => calibrated(max_at_share(*max_trials)?)?,
                SequentialRule::Wald => {
                    // Wald's thresholds do not bound the exact risk: keep them only where
                    // the exact P(not PASS | healthy) is within the share.
                    let max = max_at_share(*max_trials)?;
                    let wald = Sampling::Sequential {
                        healthy,
                        regressed,
                        alpha: case_alpha,
                        beta,
                        max_trials: max,
                        rule: SequentialRule::Wald,
                    };
                    match wald.lattice() {
                        Ok(l) if 1.0 - l.oc(healthy).p_pass <= case_alpha => wald,
                        _ => calibrated(max)?,
                    }
                }
                SequentialRule::Staged { stage, .. } => {
                    let d = stats::staged::design_staged(
                        healthy, regressed, case_alpha, beta, *stage, None,
                    )
                    .map_err(err)?;
                    Sampling::Sequential {
                        healthy,
                        regressed,
                        alpha: case_alpha,
                        beta,
                        max_trials: d.boundaries.max_trials(),
                        rule: SequentialRule::Staged {
                            stage: *stage,
                            wald: false,
                            lattice: d.boundaries,
                        },
                    }
                }
            }
        }
    };
    // The one validation of a rule, as the replay will apply it to the record.
    case_sampling.rule().map_err(err)?;
    Ok(Some(Family {
        cases,
        alpha,
        case_alpha,
        sampling: case_sampling,
        pairs: None,
    }))
}

/// The family design of a `compare:` suite task whose plan rule is `rule` (its discordant
/// rule `sampling`) once its first runs recorded `cases` test cases: each case is a compare
/// task of its own, designed as `gate plan --compare` designs one, at Šidák's share of the
/// rule's alpha (P(not PASS | head = base) at the discordance floor), with its beta, odds
/// ratio, drop and rule kind unchanged; its `max_pairs` is the default at the share, never
/// fewer than the plan's. One case is the plan's rule.
pub fn design_compare(
    rule: &super::compare_rule::CompareRule,
    sampling: &Sampling,
    cases: u64,
) -> Result<Family, String> {
    use stats::SequentialKind as Kind;
    use stats::compare::{CompareDesign, CompareSpec, Effect};
    let cases = cases.max(1);
    let alpha = rule.alpha;
    let case_alpha = sidak(alpha, cases);
    if cases == 1 {
        return Ok(Family {
            cases,
            alpha,
            case_alpha,
            sampling: sampling.clone(),
            pairs: Some(crate::ledger::FamilyPairs {
                max_pairs: rule.max_pairs,
                loss_route: rule.loss_route,
            }),
        });
    }
    if case_alpha < stats::MIN_RISK {
        return Err(format!(
            "{cases} test cases at a suite alpha of {alpha} give each case an alpha of {case_alpha:.2e} \
             (Šidák), below the minimum of 0.000001 (one in a million); raise the suite's alpha or split the suite"
        ));
    }
    let err = |e: stats::StatsError| {
        format!(
            "cannot design the compare rule of each of {cases} test cases at alpha {case_alpha:.6} (Šidák share of {alpha}): {e}"
        )
    };
    let kind = match sampling {
        Sampling::Sequential {
            rule: SequentialRule::Wald,
            ..
        } => Kind::Wald,
        _ => Kind::Calibrated,
    };
    let spec = |max_pairs: Option<u64>| CompareSpec {
        alpha: case_alpha,
        beta: rule.beta,
        max_pairs,
        rule: kind,
        drop: Some(rule.drop),
        ..CompareSpec::new(Effect::OddsRatio(rule.odds_ratio))
    };
    let mut design = CompareDesign::new(&spec(None)).map_err(err)?;
    if design.max_pairs < rule.max_pairs {
        design = CompareDesign::new(&spec(Some(rule.max_pairs))).map_err(err)?;
    }
    let (healthy, win) = crate::pair_sampler::discordant_rates(design.odds_ratio);
    let case_sampling = Sampling::Sequential {
        healthy,
        regressed: win,
        alpha: design.lattice_alpha,
        beta: rule.beta,
        max_trials: design.boundaries.max_trials(),
        rule: match kind {
            Kind::Calibrated => SequentialRule::Calibrated {
                lattice: design.boundaries.clone(),
            },
            Kind::Wald => SequentialRule::Wald,
        },
    };
    // The one validation of a rule, as the replay will apply it to the record.
    case_sampling.rule().map_err(err)?;
    Ok(Family {
        cases,
        alpha,
        case_alpha,
        sampling: case_sampling,
        pairs: Some(crate::ledger::FamilyPairs {
            max_pairs: design.max_pairs,
            loss_route: design.loss_route,
        }),
    })
}

/// The exact producer's risk of a case rule at `healthy`: P(not PASS | healthy).
pub fn case_risk(sampling: &Sampling, healthy: f64) -> Option<f64> {
    sampling.lattice().ok().map(|l| 1.0 - l.oc(healthy).p_pass)
}

#[cfg(test)]
mod tests {
    //! The share and the design meet the family guarantee exactly.

    use super::*;

    fn calibrated(alpha: f64) -> Sampling {
        let d = stats::calibrated::design_calibrated(0.9, 0.7, alpha, 0.1, None).unwrap();
        Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha,
            beta: 0.1,
            max_trials: d.boundaries.max_trials(),
            rule: SequentialRule::Calibrated {
                lattice: d.boundaries,
            },
        }
    }

    #[test]
    fn sidak_share_over_k_cases_multiplies_back_to_alpha() {
        for k in [1, 2, 33, 200, 10_000] {
            let a = sidak(0.05, k);
            assert!((family_risk(a, k) - 0.05).abs() < 1e-12, "k = {k}");
        }
    }

    #[test]
    fn a_family_of_fifty_cases_keeps_the_suite_alpha_and_each_case_its_power() {
        let plan = calibrated(0.05);
        let f = design(&plan, None, 50).unwrap().unwrap();
        assert_eq!(f.cases, 50);
        let Sampling::Sequential { alpha, beta, .. } = f.sampling else {
            panic!("a calibrated plan stays sequential")
        };
        assert!((alpha - sidak(0.05, 50)).abs() < 1e-15);
        assert_eq!(beta, 0.1);
        let l = f.sampling.lattice().unwrap();
        let risk = 1.0 - l.oc(0.9).p_pass;
        assert!(
            risk <= f.case_alpha,
            "exact case risk {risk} within the share"
        );
        assert!(family_risk(risk, 50) <= 0.05);
        assert!(l.oc(0.7).p_pass <= 0.1, "each case keeps beta");
    }

    #[test]
    fn a_fixed_single_rule_has_no_family_and_one_case_is_the_plan() {
        assert_eq!(
            design(&Sampling::Single { n: 8, c: 1 }, None, 40).unwrap(),
            None
        );
        let plan = calibrated(0.05);
        assert_eq!(design(&plan, None, 1).unwrap().unwrap().sampling, plan);
    }

    /// A suite of 100,000 cases at 5% was a harness error after its first run (its share,
    /// 5.1e-7, was below the user's floor of 1e-6): now each case gets a rule at the share,
    /// which meets the family guarantee exactly and keeps each case's power, and still
    /// passes a deterministic case after the same 9 straight passes.
    #[test]
    fn a_suite_of_100000_cases_gets_a_rule_at_its_share_below_one_in_a_million() {
        let f = design(&calibrated(0.05), None, 100_000).unwrap().unwrap();
        assert!(f.case_alpha < stats::MIN_RISK);
        let l = f.sampling.lattice().unwrap();
        let oc = l.oc(0.9);
        // The risk as the sum over FAIL and INCONCLUSIVE states, not 1 − P(PASS).
        let risk = oc.p_fail + oc.p_inconclusive;
        assert!(
            risk <= f.case_alpha,
            "exact case risk {risk} within the share"
        );
        assert!(family_risk(risk, 100_000) <= 0.05);
        assert!(l.oc(0.7).p_pass <= 0.1, "each case keeps beta");
        // The trial at which a case that always passes is PASS.
        let first_pass = |rule: Sampling| {
            let mut s = crate::sampler::OrderedSampler::new(rule, 0, None).unwrap();
            (1..=50).find(|&k| {
                s.offer(k, crate::model::Outcome::Pass);
                s.decision().is_some()
            })
        };
        let at = first_pass(f.sampling.clone());
        let plan_first = first_pass(calibrated(0.05)).unwrap();
        assert_eq!(
            at,
            Some(plan_first),
            "the earliest PASS depends on beta, not alpha"
        );
    }

    #[test]
    fn a_share_below_one_in_a_billion_is_refused_with_the_numbers() {
        let most = max_cases(0.05);
        assert!((50_000_000..52_000_000).contains(&most), "{most}");
        assert!(sidak(0.05, most) >= stats::MIN_RULE_RISK);
        assert!(sidak(0.05, most + 1) < stats::MIN_RULE_RISK);
        let e = design(&calibrated(0.05), None, most + 1).unwrap_err();
        assert!(
            e.contains(&format!("{} test cases", most + 1))
                && e.contains("one in a billion")
                && e.contains(&format!("at most {most} cases")),
            "{e}"
        );
    }

    #[test]
    fn a_designed_single_plan_is_redesigned_at_the_share() {
        let rates = Rates {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
        };
        let d = stats::design::design_single(0.9, 0.7, 0.05, 0.1).unwrap();
        let plan = Sampling::Single { n: d.n, c: d.c };
        let f = design(&plan, Some(&rates), 20).unwrap().unwrap();
        let risk = case_risk(&f.sampling, 0.9).unwrap();
        assert!(risk <= f.case_alpha && family_risk(risk, 20) <= 0.05);
        assert!(f.sampling.lattice().unwrap().oc(0.7).p_pass <= 0.1);
    }

    #[test]
    fn a_compare_family_keeps_the_suite_alpha_at_the_floor_and_each_case_its_beta() {
        let d = stats::compare::CompareDesign::new(&stats::compare::CompareSpec::new(
            stats::compare::Effect::OddsRatio(3.0),
        ))
        .unwrap();
        let rule = crate::plan::compare_rule::CompareRule {
            odds_ratio: 3.0,
            alpha: 0.05,
            beta: 0.1,
            max_pairs: d.max_pairs,
            rates: None,
            drop: d.drop,
            loss_route: d.loss_route,
        };
        let (h, w) = crate::pair_sampler::discordant_rates(3.0);
        let plan = Sampling::Sequential {
            healthy: h,
            regressed: w,
            alpha: d.lattice_alpha,
            beta: 0.1,
            max_trials: d.boundaries.max_trials(),
            rule: SequentialRule::Calibrated {
                lattice: d.boundaries.clone(),
            },
        };
        // One case: the plan's rule.
        let one = design_compare(&rule, &plan, 1).unwrap();
        assert_eq!(one.sampling, plan);
        assert_eq!(one.pairs.unwrap().max_pairs, d.max_pairs);
        let f = design_compare(&rule, &plan, 20).unwrap();
        let pairs = f.pairs.unwrap();
        assert!(
            pairs.max_pairs >= d.max_pairs,
            "never fewer pairs than the plan's"
        );
        let lattice = f.sampling.lattice().unwrap();
        let floor = stats::compare::DISCORDANCE_FLOOR;
        let at = |d: f64, theta: f64| {
            stats::compare::oc_of_lattice(&lattice, pairs.loss_route, pairs.max_pairs, d, theta)
        };
        // P(not PASS | head = base) at the floor (and above it) within the share, exactly.
        for disc in [floor, 0.3, 1.0] {
            let risk = 1.0 - at(disc, 0.5).p_pass;
            assert!(
                risk <= f.case_alpha + 1e-12,
                "d {disc}: {risk} > {}",
                f.case_alpha
            );
        }
        assert!(family_risk(1.0 - at(floor, 0.5).p_pass, 20) <= 0.05 + 1e-12);
        // Each case keeps its beta at θ1 = 3/4 on the lattice alone (the loss route's share
        // of beta is spent at a drop, not at θ).
        assert!(lattice.oc(w).p_pass <= 0.1, "beta at θ1");
    }
}
