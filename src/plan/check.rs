//! What a validated plan will do, before anything runs (`gate check`): each task's resolved
//! rule, its exact risks and its expected number of trials.
//!
//! The risks follow the same definition as the run reports: alpha is the probability that a
//! healthy agent turns the gate red — P(not PASS | healthy) under `on_inconclusive: fail`,
//! P(FAIL | healthy) under `pass` — and beta is P(PASS | regressed). A bare `single: {n, c}`
//! names no rates, so it has no risks; for it the rates the plan tells apart are shown instead
//! (where it passes 95% and 10% of the time), found by bisection on its exact OC.

use serde::Serialize;

use crate::model::{OnInconclusive, Sampling};
use crate::stats::StatsError;
use crate::stats::zone::{Zone, rate_where_p_pass_is};

use super::{Plan, Task};

/// The whole plan, as `gate check --format json` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct PlanCheck {
    /// The plan file as given.
    pub plan: String,
    /// Hex SHA-256 of its bytes.
    pub plan_hash: String,
    /// `fail` or `pass`: what an INCONCLUSIVE exits with (and so what alpha counts).
    pub on_inconclusive: OnInconclusive,
    /// One entry per task, in file order.
    pub tasks: Vec<TaskCheck>,
}

/// One task.
#[derive(Debug, Clone, Serialize)]
pub struct TaskCheck {
    /// Task id.
    pub id: String,
    /// Line of the task in the plan file.
    pub line: u64,
    /// The rule in words.
    pub rule: String,
    /// The resolved rule, as the ledger header records it.
    pub sampling: Sampling,
    /// The most graded trials the rule can consume (n or max_trials).
    pub max_trials: u64,
    /// The healthy and regressed rates the risks are stated at, when the plan gives them.
    pub rates: Option<RatePair>,
    /// Exact risks at those rates.
    pub risks: Option<Risks>,
    /// Expected graded trials at those rates (curtailment and truncation included).
    pub expected_trials: Option<RatePair>,
    /// For a staged rule: expected stages (rounds of parallel shards, the wall-time proxy)
    /// at those rates.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_stages: Option<RatePair>,
    /// For a bare single plan: the rates it passes 95% and 10% of the time.
    pub discriminates: Option<Discriminates>,
    /// The indifference zone: between the regressed and the healthy rate (or, with no rates,
    /// the `discriminates` rates), and the rate at which the rule passes half the time.
    pub zone: Option<Zone>,
    /// A suite task: where each run's results are read; every test case in them is judged
    /// on its own by this rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suite: Option<crate::ledger::SuiteRecord>,
    /// A suite task's test cases as one family: how its alpha is shared over the K cases
    /// the first run records (the text's `family` line); absent for any other task.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub family: Option<FamilyCheck>,
    /// A `compare:` task: its exact risks at θ, with the `max_pairs` truncation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compare: Option<CompareCheck>,
}

/// A `compare:` task's design as `gate check` states it: exact, with its `max_pairs`
/// truncation, from the lattice the run will use.
#[derive(Debug, Clone, Serialize)]
pub struct CompareCheck {
    /// R: head loses R discordant pairs for each one it wins.
    pub odds_ratio: f64,
    /// θ1 = R/(1+R): P(head loses | discordant) under the regression to catch.
    pub theta1: f64,
    /// Pairs after which the task is INCONCLUSIVE.
    pub max_pairs: u64,
    /// The producer's risk asked for.
    pub alpha_requested: f64,
    /// The consumer's risk asked for.
    pub beta_requested: f64,
    /// The discordance floor the realised alpha is stated at (one pair in ten).
    pub min_discordance: f64,
    /// The exact producer's risk under the plan's `on_inconclusive`: P(not PASS | head =
    /// base) at `min_discordance` with the truncation (the largest over every base rate and
    /// correlation with at least that share of discordant pairs) under `fail`; P(FAIL |
    /// head = base), the largest over every pair distribution, under `pass`.
    pub alpha: f64,
    /// P(FAIL | head = base), the largest over every pair distribution.
    pub fail_alpha: f64,
    /// The discordant rule's P(PASS | θ1): its beta for every regression of odds ratio R,
    /// whatever the fall in points, at every base rate and correlation.
    pub beta: f64,
    /// The size of a regression in points that the loss route's share of beta covers.
    pub drop: f64,
    /// The loss route's P(PASS) when head falls `drop` points (0 without the route):
    /// `beta + loss_route_beta` bounds P(PASS) for a regression of odds ratio R that is also
    /// a fall of at least `drop` points, at every base rate and correlation.
    pub loss_route_beta: f64,
    /// The equal rates of independent sides between which the discordant rule alone keeps
    /// P(not PASS | head = base) <= the requested alpha with this `max_pairs` (`null`: none);
    /// outside it, `at` says what the whole rule does.
    pub alpha_base_range: Option<[f64; 2]>,
    /// P(not PASS | head = base) at the base rates named (`gate check --at`, else the rule's
    /// `base:` rate, else 90%, 97% and 99%), exact with both routes and the truncation.
    pub at: Vec<CompareAt>,
    /// Under `fail`: the smallest share of discordant pairs with which P(not PASS | head =
    /// base) <= the requested alpha with this `max_pairs`; `null` when none is.
    pub alpha_min_discordance: Option<f64>,
    /// Expected discordant pairs at θ = 1/2 and at θ1 (as many pairs as the rule needs).
    pub expected_discordant: [f64; 2],
}

/// How a suite task's alpha is shared over its test cases (`gate check`'s `family` line, and
/// its JSON). The number of cases K is known only once the first suite run is read, so this
/// says how the share works, and what it is at a few K, rather than one figure.
#[derive(Debug, Clone, Serialize)]
pub struct FamilyCheck {
    /// `sidak`: every case is judged by the rule designed again at Šidák's share of `alpha`
    /// over the K cases (beta unchanged), so P(a suite of independent healthy cases is not
    /// PASS) ≤ `alpha`; `none`: a fixed `single:` rule states no healthy rate, so there is no
    /// alpha to share and each case's risk is its own.
    pub design: &'static str,
    /// The family risk the design keeps, for any K: the suite task's alpha (its share of
    /// `policy.suite_alpha` when the plan sets that). `null` without a design.
    pub alpha: Option<f64>,
    /// Each case's beta (its power is 1 − beta whatever K is). `null` without a design.
    pub beta: Option<f64>,
    /// Each case's alpha as a function of K: `1 - (1 - alpha)^(1/K)`. `null` without a design.
    pub case_alpha: Option<&'static str>,
    /// That share at a few K (1, 10, 50, 200, 1000, 10000). Empty without a design.
    pub case_alpha_at: Vec<CaseAlphaAt>,
    /// The most cases whose share stays at or above the design minimum of one in a billion
    /// (`stats::MIN_RULE_RISK`): a first run that records more is a harness error (raise
    /// alpha or split the suite).
    /// `null` without a design.
    pub max_cases: Option<u64>,
    /// Runs after the first are given only the undecided cases, in the file named by this
    /// variable (one case a line; empty for every case).
    pub undecided_cases_env: &'static str,
}

/// Each case's alpha for a suite of `cases` test cases.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CaseAlphaAt {
    /// K.
    pub cases: u64,
    /// Šidák's share `1 - (1 - alpha)^(1/K)`.
    pub case_alpha: f64,
}

impl FamilyCheck {
    /// The family of a suite task with this alpha and beta (`None`: a fixed `single:` rule).
    pub fn of(risks: Option<(f64, f64)>) -> FamilyCheck {
        let Some((alpha, beta)) = risks else {
            return FamilyCheck {
                design: "none",
                alpha: None,
                beta: None,
                case_alpha: None,
                case_alpha_at: Vec::new(),
                max_cases: None,
                undecided_cases_env: "GATE_SUITE_CASES",
            };
        };
        let share = |k| crate::plan::family::sidak(alpha, k);
        // The largest K with share(K) ≥ the minimum: ln(1 − alpha) / ln(1 − min), then the
        // exact function decides at the edge (the float quotient may be off by one).
        let mut max = ((-alpha).ln_1p() / (-crate::stats::MIN_RULE_RISK).ln_1p()).floor() as u64;
        while max > 1 && share(max) < crate::stats::MIN_RULE_RISK {
            max -= 1;
        }
        while share(max + 1) >= crate::stats::MIN_RULE_RISK {
            max += 1;
        }
        FamilyCheck {
            design: "sidak",
            alpha: Some(alpha),
            beta: Some(beta),
            case_alpha: Some("1 - (1 - alpha)^(1/K)"),
            case_alpha_at: [1, 10, 50, 200, 1000, 10_000]
                .into_iter()
                .map(|cases| CaseAlphaAt {
                    cases,
                    case_alpha: share(cases),
                })
                .collect(),
            max_cases: Some(max),
            undecided_cases_env: "GATE_SUITE_CASES",
        }
    }
}

/// A compare task's producer's risk at one base rate, head at the same rate, independent
/// sides: exact with both routes and the `max_pairs` truncation, from the same OC as
/// `gate plan --compare --at`. It depends on the pairs only through how often they disagree,
/// so correlated sides with the same `discordance` have the same figures.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct CompareAt {
    /// Base's (and head's) pass rate.
    pub base: f64,
    /// Where the rate came from: `at` (`--at`), `plan` (the rule's `base:`) or `default`.
    pub named_by: &'static str,
    /// P(a pair is discordant): 2b(1 − b).
    pub discordance: f64,
    /// P(not PASS | head = base): the producer's risk under `on_inconclusive: fail`.
    pub p_not_pass: f64,
    /// P(FAIL | head = base): the producer's risk under `on_inconclusive: pass`.
    pub p_fail: f64,
    /// Expected pairs (each pair is two runs).
    pub expected_pairs: f64,
    /// Whether the producer's risk under the plan's `on_inconclusive` is within the
    /// requested alpha here.
    pub alpha_holds: bool,
    /// When it is not: the fewest `max_pairs` that would keep it (`null` when it holds, or
    /// when not even 100 times `max_pairs` do).
    pub max_pairs_for_alpha: Option<u64>,
}

/// A value at the healthy and at the regressed rate.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct RatePair {
    /// At the healthy rate.
    pub healthy: f64,
    /// At the regressed rate.
    pub regressed: f64,
}

/// The exact risks of a task's rule.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Risks {
    /// P(the task turns the gate red | healthy), under the plan's `on_inconclusive`.
    pub alpha: f64,
    /// P(PASS | regressed).
    pub beta: f64,
    /// P(INCONCLUSIVE | healthy) (0 for a single plan).
    pub inconclusive_healthy: f64,
}

/// Where a bare single plan's OC crosses 95% and 10%.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Discriminates {
    /// The success rate at which P(PASS) = 0.95.
    pub p_pass_95: f64,
    /// The success rate at which P(PASS) = 0.10.
    pub p_pass_10: f64,
}

impl PlanCheck {
    /// Compute the check of a loaded plan.
    pub fn of(plan: &Plan) -> Result<PlanCheck, StatsError> {
        PlanCheck::of_at(plan, &[])
    }

    /// [`PlanCheck::of`], with compare tasks' producer's risk stated at the base rates `at`
    /// (`gate check --at`; empty: each rule's own `base:` rate, else the defaults).
    pub fn of_at(plan: &Plan, at: &[f64]) -> Result<PlanCheck, StatsError> {
        let policy = plan.policy.on_inconclusive;
        let tasks = plan
            .tasks
            .iter()
            .map(|t| task_check(t, policy, at))
            .collect::<Result<_, _>>()?;
        Ok(PlanCheck {
            plan: plan.path.display().to_string(),
            plan_hash: plan.hash.clone(),
            on_inconclusive: policy,
            tasks,
        })
    }
}

/// The base rates a compare task's producer's risk is stated at when neither `--at` nor the
/// rule names one: a typical agent, and two rates where few pairs disagree.
pub const DEFAULT_CHECK_AT: [f64; 3] = [0.9, 0.97, 0.99];

/// A compare rule's producer's risk at equal rates `base` (independent sides).
fn compare_at(
    lattice: &crate::stats::lattice::Boundaries,
    r: &super::compare_rule::CompareRule,
    policy: OnInconclusive,
    base: f64,
    named_by: &'static str,
) -> CompareAt {
    use crate::stats::compare::{MAX_PAIRS_LIMIT, max_pairs_for_alpha, oc_of_lattice};
    let d = 2.0 * base * (1.0 - base);
    let oc = oc_of_lattice(lattice, r.loss_route, r.max_pairs, d, 0.5);
    let risk = match policy {
        OnInconclusive::Fail => oc.p_fail + oc.p_inconclusive,
        OnInconclusive::Pass => oc.p_fail,
    };
    let alpha_holds = risk <= r.alpha;
    // More pairs only turn INCONCLUSIVEs into verdicts: under `pass` they cannot help.
    let max_pairs_for_alpha = (!alpha_holds && policy == OnInconclusive::Fail)
        .then(|| {
            let cap = r.max_pairs.saturating_mul(100).min(MAX_PAIRS_LIMIT);
            max_pairs_for_alpha(lattice, r.loss_route, d, r.alpha, cap)
        })
        .flatten();
    CompareAt {
        base,
        named_by,
        discordance: d,
        // FAIL plus INCONCLUSIVE, not 1 − P(PASS): exact where P(PASS) rounds to 1.
        p_not_pass: oc.p_fail + oc.p_inconclusive,
        p_fail: oc.p_fail,
        expected_pairs: oc.expected_pairs,
        alpha_holds,
        max_pairs_for_alpha,
    }
}

fn task_check(t: &Task, policy: OnInconclusive, at: &[f64]) -> Result<TaskCheck, StatsError> {
    if let Some(c) = t.compare() {
        // The risks of a compare rule are stated at θ, not at two pass rates: its design
        // words say them (the rates of the discordant rule would read as pass rates).
        let base = match &c.base.cwd_as_written {
            Some(dir) => format!("base runs in `{dir}`"),
            None => "base runs with its own `env`".to_string(),
        };
        let lattice = t.sampling.lattice()?;
        let r = &c.rule;
        let (null, alt) = (lattice.oc(0.5), lattice.oc(1.0 / (1.0 + r.odds_ratio)));
        let floor = crate::stats::compare::DISCORDANCE_FLOOR;
        let alpha = match policy {
            OnInconclusive::Fail => {
                1.0 - crate::stats::compare::oc_of_lattice(&lattice, None, r.max_pairs, floor, 0.5)
                    .p_pass
            }
            OnInconclusive::Pass => null.p_fail,
        };
        let alpha_min_discordance = match policy {
            OnInconclusive::Fail => {
                crate::stats::compare::min_discordance_of_lattice(&lattice, r.max_pairs, r.alpha)
            }
            OnInconclusive::Pass => None,
        };
        let compare = CompareCheck {
            odds_ratio: r.odds_ratio,
            theta1: r.odds_ratio / (1.0 + r.odds_ratio),
            max_pairs: r.max_pairs,
            alpha_requested: r.alpha,
            beta_requested: r.beta,
            min_discordance: floor,
            alpha,
            fail_alpha: null.p_fail,
            beta: alt.p_pass,
            drop: r.drop,
            loss_route_beta: r.loss_route.map_or(0.0, |l| l.p_pass(r.drop, r.max_pairs)),
            alpha_base_range: alpha_min_discordance.filter(|&d| d <= 0.5).map(|d| {
                let half = (1.0 - 2.0 * d).sqrt() / 2.0;
                [0.5 - half, 0.5 + half]
            }),
            at: {
                let named: Vec<(f64, &'static str)> = if !at.is_empty() {
                    at.iter().map(|&b| (b, "at")).collect()
                } else if let Some(rates) = r.rates {
                    vec![(rates.base, "plan")]
                } else {
                    DEFAULT_CHECK_AT.iter().map(|&b| (b, "default")).collect()
                };
                named
                    .into_iter()
                    .map(|(b, by)| compare_at(&lattice, r, policy, b, by))
                    .collect()
            },
            alpha_min_discordance,
            expected_discordant: [null.asn, alt.asn],
        };
        return Ok(TaskCheck {
            compare: Some(compare),
            id: t.id.clone(),
            line: t.line,
            rule: format!(
                "{} ({base})",
                t.designed.clone().unwrap_or_else(|| t.sampling.describe())
            ),
            sampling: t.sampling.clone(),
            max_trials: c.rule.max_pairs,
            rates: None,
            risks: None,
            expected_trials: None,
            expected_stages: None,
            discriminates: None,
            zone: None,
            suite: t.suite().map(crate::plan::SuiteTask::record),
            // A compare suite's cases are one family at the compare rule's alpha.
            family: t.suite().map(|_| FamilyCheck::of(Some((r.alpha, r.beta)))),
        });
    }
    // Every rule's exact OC comes from its lattice (a single plan's in closed form).
    let lattice = t.sampling.lattice()?;
    let at = |p: f64| lattice.oc(p);
    let rates = match (t.rates, &t.sampling) {
        (Some(r), _) => Some((r.healthy, r.regressed)),
        (
            None,
            &Sampling::Sequential {
                healthy, regressed, ..
            },
        ) => Some((healthy, regressed)),
        (None, Sampling::Single { .. }) => None,
    };
    let (risks, expected) = match rates {
        Some((h, r)) => {
            let (ph, pr) = (at(h), at(r));
            let alpha = match policy {
                OnInconclusive::Fail => 1.0 - ph.p_pass,
                OnInconclusive::Pass => ph.p_fail,
            };
            (
                Some(Risks {
                    alpha,
                    beta: pr.p_pass,
                    inconclusive_healthy: ph.p_inconclusive,
                }),
                Some(RatePair {
                    healthy: ph.asn,
                    regressed: pr.asn,
                }),
            )
        }
        None => (None, None),
    };
    let discriminates = match t.sampling {
        Sampling::Single { .. } if rates.is_none() => {
            let p_pass = |p| at(p).p_pass;
            match (
                rate_where_p_pass_is(p_pass, 0.95),
                rate_where_p_pass_is(p_pass, 0.10),
            ) {
                (Some(p_pass_95), Some(p_pass_10)) => Some(Discriminates {
                    p_pass_95,
                    p_pass_10,
                }),
                _ => None,
            }
        }
        _ => None,
    };
    let zone = match rates {
        Some((h, r)) => Zone::of(&lattice, r, h),
        None => Zone::unstated(&lattice),
    };
    let expected_stages = match (&t.sampling, rates) {
        (
            Sampling::Sequential {
                rule: crate::model::SequentialRule::Staged { stage, .. },
                ..
            },
            Some((h, r)),
        ) => Some(RatePair {
            healthy: crate::stats::staged::expected_stages(&lattice, *stage, h),
            regressed: crate::stats::staged::expected_stages(&lattice, *stage, r),
        }),
        _ => None,
    };
    Ok(TaskCheck {
        id: t.id.clone(),
        line: t.line,
        rule: t.sampling.describe(),
        sampling: t.sampling.clone(),
        max_trials: t.sampling.max_graded(),
        rates: rates.map(|(healthy, regressed)| RatePair { healthy, regressed }),
        risks,
        expected_trials: expected,
        expected_stages,
        discriminates,
        zone,
        suite: t.suite().map(crate::plan::SuiteTask::record),
        family: t
            .suite()
            .map(|_| FamilyCheck::of(t.rates.map(|r| (r.alpha, r.beta)))),
        compare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_discriminating_rates_are_where_the_oc_crosses() {
        let p_pass = |p| {
            crate::stats::lattice::Boundaries::single(33, 6)
                .unwrap()
                .oc(p)
                .p_pass
        };
        let p95 = rate_where_p_pass_is(p_pass, 0.95).unwrap();
        let p10 = rate_where_p_pass_is(p_pass, 0.10).unwrap();
        assert!((p_pass(p95) - 0.95).abs() < 1e-9);
        assert!((p_pass(p10) - 0.10).abs() < 1e-9);
        assert!(p10 < p95);
    }
}
