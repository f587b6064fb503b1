//! `gate plan --evaluate N,C`: an existing single plan judged at the given rates; the risks
//! are only compared, not designed for.

use serde::Serialize;

use super::{DesignError, OneSampleOptions, UnavailableRisks, alpha_of, oc_grid};
use crate::stats::calibrated;
use crate::stats::lattice::Boundaries;

/// `gate plan --evaluate N,C`: an existing single plan judged at the given rates.
#[derive(Debug, Clone, Serialize)]
pub struct EvaluateReport {
    /// Trials.
    pub n: u64,
    /// Acceptance number.
    pub c: u64,
    /// Healthy per-trial success rate.
    pub healthy: f64,
    /// Regressed per-trial success rate.
    pub regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(PASS | regressed).
    pub p_pass_regressed: f64,
    /// P(not PASS | healthy) (a single plan is never INCONCLUSIVE).
    pub realised_alpha: f64,
    /// P(PASS | regressed).
    pub realised_beta: f64,
    /// Whether the realised alpha is within the request.
    pub meets_alpha: bool,
    /// Whether the realised beta is within the request.
    pub meets_beta: bool,
    /// Expected trials with curtailment, healthy.
    pub curtailed_asn_healthy: f64,
    /// Expected trials with curtailment, regressed.
    pub curtailed_asn_regressed: f64,
    /// Wald's lower bound at the healthy rate for the requested risks.
    pub asn_bound_healthy: f64,
    /// Wald's lower bound at the regressed rate for the requested risks.
    pub asn_bound_regressed: f64,
    /// Trials launched with `--jobs`, when given.
    pub launched: Option<EvaluateLaunched>,
    /// Risks with unavailable trials, when `--unavailable-rate` is given.
    pub unavailable: Option<EvaluateUnavailable>,
    /// P(PASS) and curtailed expected trials over the OC grid.
    pub oc: Vec<EvaluateRow>,
}

/// `--evaluate` with `--jobs`: expected trials launched (graded + cancelled in flight).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvaluateLaunched {
    /// Parallel trials.
    pub jobs: u64,
    /// Expected trials launched when healthy.
    pub launched_healthy: f64,
    /// Expected trials launched when regressed.
    pub launched_regressed: f64,
}

/// `--evaluate` with `--unavailable-rate`: the plan's risks with unavailable trials.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvaluateUnavailable {
    /// Per-trial probability of an unavailable trial.
    pub rate: f64,
    /// The risks, as in `gate plan`'s `unavailable.single`.
    #[serde(flatten)]
    pub risks: UnavailableRisks,
}

/// One row of [`EvaluateReport::oc`].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvaluateRow {
    /// True per-trial success rate.
    pub p: f64,
    /// P(PASS).
    pub p_pass: f64,
    /// Expected trials, curtailed.
    pub curtailed_asn: f64,
}

impl EvaluateReport {
    /// Judge (n, c) at the options' rates; the risks are only compared, not designed for.
    pub fn build(n: u64, c: u64, o: &OneSampleOptions) -> Result<Self, DesignError> {
        let (healthy, regressed, alpha, beta) = (o.healthy, o.regressed, o.alpha, o.beta);
        crate::stats::check_rates(healthy, regressed, alpha, beta)?;
        let lattice = Boundaries::single(n, c)?;
        let (bound_h, bound_r) = calibrated::wald_bound(healthy, regressed, alpha, beta);
        let (at_h, at_r) = (lattice.oc(healthy), lattice.oc(regressed));
        let (realised_alpha, realised_beta) = (at_h.p_fail, at_r.p_pass);
        let unavailable = match o.unavailable_rate {
            None => None,
            Some(u) if !(0.0..1.0).contains(&u) => return Err(DesignError::UnavailableRate(u)),
            Some(u) => {
                let budget = o.max_unavailable.unwrap_or_else(|| n.div_ceil(10));
                let (h, r) = (
                    lattice.oc_unavailable(healthy, u, budget),
                    lattice.oc_unavailable(regressed, u, budget),
                );
                Some(EvaluateUnavailable {
                    rate: u,
                    risks: UnavailableRisks {
                        budget,
                        p_pass_healthy: h.p_pass,
                        p_fail_healthy: h.p_fail,
                        p_budget_healthy: h.p_budget,
                        realised_alpha: alpha_of(o.on_inconclusive, h.p_pass, h.p_fail),
                        realised_beta: r.p_pass,
                        trials_healthy: h.asn_trials,
                        trials_regressed: r.asn_trials,
                    },
                })
            }
        };
        Ok(EvaluateReport {
            n,
            c,
            healthy,
            regressed,
            alpha,
            beta,
            p_pass_healthy: at_h.p_pass,
            p_pass_regressed: realised_beta,
            realised_alpha,
            realised_beta,
            meets_alpha: realised_alpha <= alpha,
            meets_beta: realised_beta <= beta,
            curtailed_asn_healthy: at_h.asn,
            curtailed_asn_regressed: at_r.asn,
            asn_bound_healthy: bound_h,
            asn_bound_regressed: bound_r,
            launched: o.jobs.map(|j| EvaluateLaunched {
                jobs: j,
                launched_healthy: lattice.expected_launched(healthy, j),
                launched_regressed: lattice.expected_launched(regressed, j),
            }),
            unavailable,
            oc: oc_grid(healthy, regressed)
                .into_iter()
                .map(|p| EvaluateRow {
                    p,
                    p_pass: lattice.oc(p).p_pass,
                    curtailed_asn: lattice.oc(p).asn,
                })
                .collect(),
        })
    }
}
