//! `gate plan`'s one-sample design (one stream of trials, a healthy against a regressed
//! rate; `--compare`'s paired design is [`super::compare`]): the single plan, the sequential
//! rule for the same rates and risks, their exact OC, expected trials and the bounds they are
//! measured against, and (with `--stage`) the staged rule.

use serde::Serialize;

use super::zone::ZoneReport;
use super::{DesignError, LatticeJson, alpha_of, alpha_words, oc_grid, pair};
use crate::model::OnInconclusive;
use crate::stats::lattice::Boundaries;
use crate::stats::sprt::{Sprt, default_max_trials, worst_asn};
use crate::stats::zone::Zone;
use crate::stats::{self as stats, MAX_TRIALS_LIMIT, StatsError, calibrated, design, staged};

/// What `gate plan` was asked for, beyond the rates and risks.
#[derive(Debug, Clone, Copy)]
pub struct OneSampleOptions {
    /// Healthy per-trial success rate p0.
    pub healthy: f64,
    /// Regressed per-trial success rate p1.
    pub regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// Truncation of the sequential rule (default: twice the single plan's n).
    pub max_trials: Option<u64>,
    /// Calibrated (default) or Wald's sequential rule.
    pub wald: bool,
    /// What an INCONCLUSIVE does to the gate; it defines alpha.
    pub on_inconclusive: OnInconclusive,
    /// Parallel trials, to state the trials launched.
    pub jobs: Option<u64>,
    /// Per-trial probability of an unavailable trial, to fold the budget into the OC.
    pub unavailable_rate: Option<f64>,
    /// The unavailable budget (default: 10% of n or max_trials, rounded up).
    pub max_unavailable: Option<u64>,
    /// Trials per stage, to design the staged rule too.
    pub stage: Option<u64>,
    /// Stages at most for the staged rule.
    pub max_stages: Option<u64>,
}

impl OneSampleOptions {
    /// The options with every optional setting at its default.
    pub fn new(healthy: f64, regressed: f64, alpha: f64, beta: f64) -> Self {
        OneSampleOptions {
            healthy,
            regressed,
            alpha,
            beta,
            max_trials: None,
            wald: false,
            on_inconclusive: OnInconclusive::Fail,
            jobs: None,
            unavailable_rate: None,
            max_unavailable: None,
            stage: None,
            max_stages: None,
        }
    }
}

/// Everything `gate plan` reports; serialises to the documented JSON contract.
#[derive(Debug, Clone, Serialize)]
pub struct OneSampleReport {
    /// Healthy per-trial success rate p0.
    pub healthy: f64,
    /// Regressed per-trial success rate p1.
    pub regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// What an INCONCLUSIVE does to the gate (`fail` or `pass`); it defines alpha.
    pub on_inconclusive: OnInconclusive,
    /// The one definition of alpha used for every realised alpha below.
    pub alpha_definition: &'static str,
    /// The smallest single plan meeting both risks.
    pub single: SingleReport,
    /// The sequential rule for the same rates and risks.
    pub sequential: SequentialReport,
    /// Both plans over a grid of true rates (see [`oc_grid`]).
    pub oc: Vec<OcRow>,
    /// The sequential rule as failure counts: after `trials` graded trials, PASS once
    /// failures are at most `pass_max_failures`, FAIL once they are at least
    /// `fail_min_failures` (`null`: that verdict is not reachable yet). Every sequential
    /// probability and expected trial count above is computed from exactly this table.
    pub lattice: Vec<LatticeJson>,
    /// Trials launched with `--jobs`, when given.
    pub jobs: Option<JobsReport>,
    /// The risks with unavailable trials, when `--unavailable-rate` is given.
    pub unavailable: Option<UnavailableReport>,
    /// The staged rule, when `--stage` is given (see [`StagedReport`]).
    pub staged: Option<StagedReport>,
    /// Where each plan passes half the time between the two rates, and the design that
    /// halves that zone with what it costs.
    pub zone: ZoneReport,
    #[serde(skip)]
    boundaries: Boundaries,
    #[serde(skip)]
    single_boundaries: Boundaries,
    /// Whether the calibrated rule can be designed within this `max_trials` (for Wald's
    /// warning: it offers the calibrated rule only where one exists).
    #[serde(skip)]
    calibrated_fits: bool,
}

/// The single plan in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SingleReport {
    /// Trials.
    pub n: u64,
    /// Acceptance number: failures tolerated.
    pub c: u64,
    /// n - c.
    pub min_successes: u64,
    /// P(PASS | healthy) >= 1 - alpha.
    pub p_pass_healthy: f64,
    /// P(PASS | regressed) <= beta.
    pub p_pass_regressed: f64,
    /// P(not PASS | healthy) (a single plan is never INCONCLUSIVE, so under either policy).
    pub realised_alpha: f64,
    /// Expected trials of the curtailed plan when healthy.
    pub curtailed_asn_healthy: f64,
    /// Expected trials of the curtailed plan when regressed.
    pub curtailed_asn_regressed: f64,
}

/// The sequential plan in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SequentialReport {
    /// `calibrated` or `wald`.
    pub rule: &'static str,
    /// Truncation: INCONCLUSIVE after this many graded trials.
    pub max_trials: u64,
    /// Wald's rule: PASS once the LLR is at or below this (`null` for the calibrated rule).
    pub accept_llr: Option<f64>,
    /// Wald's rule: FAIL once the LLR is at or above this (`null` for the calibrated rule).
    pub reject_llr: Option<f64>,
    /// LLR change of one success (negative).
    pub llr_per_success: f64,
    /// LLR change of one failure (positive).
    pub llr_per_failure: f64,
    /// Fewest trials to a PASS (all successes); None if no PASS within max_trials.
    pub earliest_pass: Option<u64>,
    /// Fewest trials to a FAIL (all failures); None if no FAIL within max_trials.
    pub earliest_fail: Option<u64>,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(FAIL | healthy).
    pub p_fail_healthy: f64,
    /// P(INCONCLUSIVE | healthy).
    pub p_inconclusive_healthy: f64,
    /// P(PASS | regressed): the realised consumer's risk.
    pub p_pass_regressed: f64,
    /// P(FAIL | regressed).
    pub p_fail_regressed: f64,
    /// P(INCONCLUSIVE | regressed).
    pub p_inconclusive_regressed: f64,
    /// The realised producer's risk under `alpha_definition`.
    pub realised_alpha: f64,
    /// The realised consumer's risk, P(PASS | regressed).
    pub realised_beta: f64,
    /// Expected trials when healthy.
    pub asn_healthy: f64,
    /// Expected trials when regressed.
    pub asn_regressed: f64,
    /// The largest expected trials over rates between regressed and healthy.
    pub asn_max: f64,
    /// The rate at which `asn_max` occurs.
    pub asn_max_p: f64,
    /// Wald's lower bound on the expected trials of ANY test with these risks, when healthy.
    pub asn_bound_healthy: f64,
    /// The same bound when regressed.
    pub asn_bound_regressed: f64,
    /// `asn_healthy / asn_bound_healthy`: how close to the information limit (1 is the limit).
    pub asn_ratio_healthy: f64,
    /// `asn_regressed / asn_bound_regressed`.
    pub asn_ratio_regressed: f64,
    /// Fraction of the curtailed single plan's expected trials saved when healthy
    /// (negative: costs more).
    pub saving_healthy: f64,
    /// The same when regressed.
    pub saving_regressed: f64,
}

/// Expected trials LAUNCHED with `--jobs J`: graded trials plus those in flight when the
/// decision is reached (cancelled, but paid for), when trials finish in ordinal order.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct JobsReport {
    /// Parallel trials.
    pub jobs: u64,
    /// Single plan (curtailed), healthy.
    pub single_launched_healthy: f64,
    /// Single plan (curtailed), regressed.
    pub single_launched_regressed: f64,
    /// Sequential rule, healthy.
    pub sequential_launched_healthy: f64,
    /// Sequential rule, regressed.
    pub sequential_launched_regressed: f64,
}

/// The exact risks when each trial is unavailable with probability `rate` and more than
/// `budget` unavailable trials make the task INCONCLUSIVE.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct UnavailableReport {
    /// Per-trial probability of an unavailable trial.
    pub rate: f64,
    /// The single plan with its budget.
    pub single: UnavailableRisks,
    /// The sequential rule with its budget.
    pub sequential: UnavailableRisks,
}

/// One rule's risks with unavailable trials.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct UnavailableRisks {
    /// Unavailable trials tolerated (one more is INCONCLUSIVE).
    pub budget: u64,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(FAIL | healthy).
    pub p_fail_healthy: f64,
    /// P(INCONCLUSIVE | healthy) because the budget ran out.
    pub p_budget_healthy: f64,
    /// The realised producer's risk under `alpha_definition`.
    pub realised_alpha: f64,
    /// P(PASS | regressed).
    pub realised_beta: f64,
    /// Expected trials run (graded and unavailable) when healthy.
    pub trials_healthy: f64,
    /// Expected trials run when regressed.
    pub trials_regressed: f64,
}

/// One row of the OC table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct OcRow {
    /// True per-trial success rate.
    pub p: f64,
    /// Single plan P(PASS).
    pub single_p_pass: f64,
    /// Single plan expected trials, curtailed.
    pub single_curtailed_asn: f64,
    /// Sequential P(PASS).
    pub sequential_p_pass: f64,
    /// Sequential P(FAIL).
    pub sequential_p_fail: f64,
    /// Sequential P(INCONCLUSIVE).
    pub sequential_p_inconclusive: f64,
    /// Sequential expected trials.
    pub sequential_asn: f64,
}

impl OneSampleReport {
    /// The single plan's lattice and the sequential rule's, from which every figure was
    /// computed (a renderer evaluates their OC between the grid's rates).
    pub fn lattices(&self) -> (&Boundaries, &Boundaries) {
        (&self.single_boundaries, &self.boundaries)
    }

    /// Whether the calibrated rule can be designed within this `max_trials` (for Wald's
    /// warning: it offers the calibrated rule only where one exists).
    pub fn calibrated_fits(&self) -> bool {
        self.calibrated_fits
    }

    /// Validate the options and compute both plans; errors name the parameter and its range.
    pub fn build(o: &OneSampleOptions) -> Result<Self, DesignError> {
        let OneSampleOptions {
            healthy,
            regressed,
            alpha,
            beta,
            ..
        } = *o;
        // What the user asks for has the user's floor; the designs accept smaller risks
        // (a suite's per-case share).
        crate::stats::check_rates(healthy, regressed, alpha, beta)?;
        let single = design::design_single(healthy, regressed, alpha, beta)?;
        let max_trials = match o.max_trials {
            Some(m) => crate::stats::check_trials("max_trials", m).map(|()| m)?,
            None => default_max_trials(healthy, regressed, alpha, beta)?,
        };
        let sprt = Sprt::new(healthy, regressed, alpha, beta, max_trials)?;
        // The design that halves the zone needs nothing from this one: it is designed on a
        // second thread meanwhile (for 50% vs 49% it is a design of 171,442 trials).
        let (narrower, report) = stats::join(
            || super::zone::narrower(healthy, regressed, alpha, beta, o.wald),
            || Self::build_designed(o, single, max_trials, sprt),
        );
        let mut report = report?;
        report.zone.narrower = narrower;
        Ok(report)
    }

    /// [`OneSampleReport::build`] once the inputs are valid, all but the narrower design.
    fn build_designed(
        o: &OneSampleOptions,
        single: design::SingleDesign,
        max_trials: u64,
        sprt: Sprt,
    ) -> Result<Self, DesignError> {
        let OneSampleOptions {
            healthy,
            regressed,
            alpha,
            beta,
            ..
        } = *o;
        let (rule, boundaries, wald_breaks) = if o.wald {
            // A truncation no verdict can be reached within is not a plan.
            sprt.check_reachable()?;
            let wald = Boundaries::wald(&sprt);
            let [h, r] = pair(&wald, healthy, regressed);
            // Only a Wald rule that breaks a risk prints the warning that needs this.
            let breaks = alpha_of(o.on_inconclusive, h.p_pass, h.p_fail) > alpha || r.p_pass > beta;
            ("wald", wald, breaks)
        } else {
            let d =
                calibrated::design_calibrated(healthy, regressed, alpha, beta, Some(max_trials))?;
            ("calibrated", d.boundaries, false)
        };
        let single_lattice = Boundaries::single(single.n, single.c)?;
        // Every published sequential figure comes from the lattice that is published. The
        // zones' half-pass rates (two bisections over the exact OC) run on a second thread
        // beside the other walks of the lattice, and the calibrated rule Wald's warning needs
        // on a third; each is the same computation either way.
        let grid = oc_grid(healthy, regressed);
        let (fits, ((zone_single, zone_sequential), (at_healthy, at_regressed, grid_oc, worst))) =
            stats::join(
                || {
                    wald_breaks
                        && calibrated::design_calibrated(
                            healthy,
                            regressed,
                            alpha,
                            beta,
                            Some(max_trials),
                        )
                        .is_ok()
                },
                || {
                    stats::join(
                        || {
                            (
                                Zone::of(&single_lattice, regressed, healthy),
                                Zone::of(&boundaries, regressed, healthy),
                            )
                        },
                        || {
                            // Both rates and the OC table in one batch of walks.
                            let rates: Vec<f64> = [healthy, regressed]
                                .into_iter()
                                .chain(grid.iter().copied())
                                .collect();
                            let ocs = boundaries.oc_many(&rates);
                            (
                                ocs[0],
                                ocs[1],
                                ocs[2..].to_vec(),
                                worst_asn(regressed, healthy, |ps| {
                                    boundaries.oc_many(ps).iter().map(|oc| oc.asn).collect()
                                }),
                            )
                        },
                    )
                },
            );
        // Only a Wald rule that breaks a risk needs to know; the calibrated rule fits.
        let calibrated_fits = !o.wald || fits;
        let (earliest_pass, earliest_fail) = boundaries.earliest();
        let (bound_h, bound_r) = calibrated::wald_bound(healthy, regressed, alpha, beta);
        let (single_h, single_r) = (single_lattice.oc(healthy), single_lattice.oc(regressed));
        let policy = o.on_inconclusive;
        let sequential = SequentialReport {
            rule,
            max_trials,
            accept_llr: o.wald.then(|| sprt.accept_llr()),
            reject_llr: o.wald.then(|| sprt.reject_llr()),
            llr_per_success: sprt.llr(1, 0),
            llr_per_failure: sprt.llr(0, 1),
            earliest_pass,
            earliest_fail,
            p_pass_healthy: at_healthy.p_pass,
            p_fail_healthy: at_healthy.p_fail,
            p_inconclusive_healthy: at_healthy.p_inconclusive,
            p_pass_regressed: at_regressed.p_pass,
            p_fail_regressed: at_regressed.p_fail,
            p_inconclusive_regressed: at_regressed.p_inconclusive,
            realised_alpha: alpha_of(policy, at_healthy.p_pass, at_healthy.p_fail),
            realised_beta: at_regressed.p_pass,
            asn_healthy: at_healthy.asn,
            asn_regressed: at_regressed.asn,
            asn_max: worst.asn,
            asn_max_p: worst.p,
            asn_bound_healthy: bound_h,
            asn_bound_regressed: bound_r,
            asn_ratio_healthy: at_healthy.asn / bound_h,
            asn_ratio_regressed: at_regressed.asn / bound_r,
            saving_healthy: 1.0 - at_healthy.asn / single_h.asn,
            saving_regressed: 1.0 - at_regressed.asn / single_r.asn,
        };
        let jobs = o.jobs.map(|jobs| JobsReport {
            jobs,
            single_launched_healthy: single_lattice.expected_launched(healthy, jobs),
            single_launched_regressed: single_lattice.expected_launched(regressed, jobs),
            sequential_launched_healthy: boundaries.expected_launched(healthy, jobs),
            sequential_launched_regressed: boundaries.expected_launched(regressed, jobs),
        });
        let unavailable = match o.unavailable_rate {
            None => None,
            Some(u) if !(0.0..1.0).contains(&u) => return Err(DesignError::UnavailableRate(u)),
            Some(u) => {
                let risks = |b: &Boundaries, budget: Option<u64>| {
                    let budget = budget.unwrap_or_else(|| b.max_trials().div_ceil(10));
                    let (h, r) = (
                        b.oc_unavailable(healthy, u, budget),
                        b.oc_unavailable(regressed, u, budget),
                    );
                    UnavailableRisks {
                        budget,
                        p_pass_healthy: h.p_pass,
                        p_fail_healthy: h.p_fail,
                        p_budget_healthy: h.p_budget,
                        realised_alpha: alpha_of(policy, h.p_pass, h.p_fail),
                        realised_beta: r.p_pass,
                        trials_healthy: h.asn_trials,
                        trials_regressed: r.asn_trials,
                    }
                };
                Some(UnavailableReport {
                    rate: u,
                    single: risks(&single_lattice, o.max_unavailable),
                    sequential: risks(&boundaries, o.max_unavailable),
                })
            }
        };
        let single = SingleReport {
            n: single.n,
            c: single.c,
            min_successes: single.min_successes(),
            p_pass_healthy: single.p_pass_healthy,
            p_pass_regressed: single.p_pass_regressed,
            realised_alpha: single_h.p_fail,
            curtailed_asn_healthy: single_h.asn,
            curtailed_asn_regressed: single_r.asn,
        };
        let zone = ZoneReport {
            single: zone_single,
            sequential: zone_sequential,
            narrower: None,
        };
        let oc = grid
            .into_iter()
            .zip(grid_oc)
            .map(|(p, seq)| OcRow {
                p,
                single_p_pass: single_lattice.oc(p).p_pass,
                single_curtailed_asn: single_lattice.oc(p).asn,
                sequential_p_pass: seq.p_pass,
                sequential_p_fail: seq.p_fail,
                sequential_p_inconclusive: seq.p_inconclusive,
                sequential_asn: seq.asn,
            })
            .collect();
        let lattice = LatticeJson::rows(&boundaries);
        Ok(OneSampleReport {
            healthy,
            regressed,
            alpha,
            beta,
            on_inconclusive: policy,
            alpha_definition: alpha_words(policy),
            single,
            sequential,
            oc,
            lattice,
            jobs,
            unavailable,
            staged: staged_report(o, &single_lattice, &boundaries)?,
            zone,
            boundaries,
            single_boundaries: single_lattice,
            calibrated_fits,
        })
    }
}

/// The staged rule of `gate plan --stage B`, in the JSON contract: decisions only after every
/// `stage` trials, so each stage runs as one round of parallel jobs (shards). Compared at the
/// two rates with the fully sequential rule above (one trial at a time) and with the single
/// plan looked at only at the same stage ends. Trials are expected trials run (all of a
/// stage's trials run); stages are expected rounds, the wall-time proxy.
#[derive(Debug, Clone, Serialize)]
pub struct StagedReport {
    /// Trials per stage (B).
    pub stage: u64,
    /// Stages at most.
    pub max_stages: u64,
    /// Truncation: trials at most (the last stage is shorter when not a multiple of B).
    pub max_trials: u64,
    /// `calibrated` or `wald` (Wald's thresholds consulted at stage ends).
    pub rule: &'static str,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(FAIL | healthy).
    pub p_fail_healthy: f64,
    /// P(INCONCLUSIVE | healthy).
    pub p_inconclusive_healthy: f64,
    /// P(PASS | regressed).
    pub p_pass_regressed: f64,
    /// P(FAIL | regressed).
    pub p_fail_regressed: f64,
    /// P(INCONCLUSIVE | regressed).
    pub p_inconclusive_regressed: f64,
    /// The producer's risk under the `on_inconclusive` policy.
    pub realised_alpha: f64,
    /// P(PASS | regressed).
    pub realised_beta: f64,
    /// Expected trials run, healthy.
    pub trials_healthy: f64,
    /// Expected trials run, regressed.
    pub trials_regressed: f64,
    /// Expected stages run, healthy.
    pub stages_healthy: f64,
    /// Expected stages run, regressed.
    pub stages_regressed: f64,
    /// The fully sequential rule (one trial at a time: its stages are its trials), healthy.
    pub sequential_trials_healthy: f64,
    /// The fully sequential rule, regressed.
    pub sequential_trials_regressed: f64,
    /// The single plan decided only at the same stage ends: expected trials, healthy.
    pub single_trials_healthy: f64,
    /// The single plan at stage ends: expected trials, regressed.
    pub single_trials_regressed: f64,
    /// The single plan at stage ends: expected stages, healthy.
    pub single_stages_healthy: f64,
    /// The single plan at stage ends: expected stages, regressed.
    pub single_stages_regressed: f64,
    /// The staged rule over the OC grid.
    pub oc: Vec<StagedOcRow>,
    /// The decision rows at the stage ends (every other row continues).
    pub lattice: Vec<LatticeJson>,
}

/// One row of the staged OC table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StagedOcRow {
    /// True per-trial success rate.
    pub p: f64,
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE).
    pub p_inconclusive: f64,
    /// Expected trials run.
    pub trials: f64,
    /// Expected stages run.
    pub stages: f64,
}

/// The staged rule for `--stage`, or None without it. `single` is the single plan's lattice
/// and `sequential` the fully sequential rule already designed.
fn staged_report(
    o: &OneSampleOptions,
    single: &Boundaries,
    sequential: &Boundaries,
) -> Result<Option<StagedReport>, DesignError> {
    let Some(stage) = o.stage else {
        return Ok(None);
    };
    let OneSampleOptions {
        healthy,
        regressed,
        alpha,
        beta,
        ..
    } = *o;
    staged::check_stage(stage)?;
    let max_trials =
        staged::staged_max_trials(Some(single.max_trials()), stage, None, o.max_stages)
            .unwrap_or(single.max_trials());
    if max_trials > MAX_TRIALS_LIMIT {
        return Err(DesignError::StagedTooLong {
            max_trials,
            limit: MAX_TRIALS_LIMIT,
        });
    }
    let (rule, boundaries) = if o.wald {
        let sprt = Sprt::new(healthy, regressed, alpha, beta, max_trials)?;
        sprt.check_reachable()?;
        ("wald", staged::wald_staged(&sprt, stage))
    } else {
        let d = staged::design_staged(healthy, regressed, alpha, beta, stage, Some(max_trials))
            .map_err(|e| match e {
                StatsError::NoSequential { max_trials, .. } => {
                    DesignError::NoStaged { stage, max_trials }
                }
                e => e.into(),
            })?;
        ("calibrated", d.boundaries)
    };
    // The design may stop sooner than asked (its single-plan fallback ends at n).
    let max_trials = boundaries.max_trials();
    let [h, r] = pair(&boundaries, healthy, regressed);
    let single_staged = staged::at_stage_ends(single, stage);
    let stages = |b: &Boundaries, p: f64| staged::expected_stages(b, stage, p);
    let grid = oc_grid(healthy, regressed);
    let grid_oc = boundaries.oc_many(&grid);
    let oc = grid
        .into_iter()
        .zip(grid_oc)
        .map(|(p, x)| StagedOcRow {
            p,
            p_pass: x.p_pass,
            p_fail: x.p_fail,
            p_inconclusive: x.p_inconclusive,
            trials: x.asn,
            stages: stages(&boundaries, p),
        })
        .collect();
    let lattice = boundaries
        .rows()
        .iter()
        .filter(|row| row.pass_max_failures.is_some() || row.fail_min_failures.is_some())
        .map(|row| LatticeJson {
            trials: row.trials,
            pass_max_failures: row.pass_max_failures,
            fail_min_failures: row.fail_min_failures,
        })
        .collect();
    let (sequential_at, single_at) = (
        pair(sequential, healthy, regressed),
        pair(&single_staged, healthy, regressed),
    );
    Ok(Some(StagedReport {
        stage,
        max_stages: staged::stage_of(stage, max_trials),
        max_trials,
        rule,
        p_pass_healthy: h.p_pass,
        p_fail_healthy: h.p_fail,
        p_inconclusive_healthy: h.p_inconclusive,
        p_pass_regressed: r.p_pass,
        p_fail_regressed: r.p_fail,
        p_inconclusive_regressed: r.p_inconclusive,
        realised_alpha: alpha_of(o.on_inconclusive, h.p_pass, h.p_fail),
        realised_beta: r.p_pass,
        trials_healthy: h.asn,
        trials_regressed: r.asn,
        stages_healthy: stages(&boundaries, healthy),
        stages_regressed: stages(&boundaries, regressed),
        sequential_trials_healthy: sequential_at[0].asn,
        sequential_trials_regressed: sequential_at[1].asn,
        single_trials_healthy: single_at[0].asn,
        single_trials_regressed: single_at[1].asn,
        single_stages_healthy: stages(&single_staged, healthy),
        single_stages_regressed: stages(&single_staged, regressed),
        oc,
        lattice,
    }))
}
