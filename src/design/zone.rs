//! `gate plan`'s indifference zone: between the regressed and the healthy rate the verdict
//! can go either way, and at one rate in there (found from each rule's exact OC) a plan
//! passes half the time. The report also offers the design that halves that zone — the same
//! risks, the same healthy rate, a regressed rate halfway up to it — and what that costs in
//! expected trials, so a user who finds the zone too wide sees the price of narrowing it.

use serde::Serialize;

use crate::stats::lattice::Boundaries;
use crate::stats::sprt::{Sprt, default_max_trials};
use crate::stats::zone::Zone;
use crate::stats::{calibrated, design};

/// The zone of both designed plans and the narrower design, in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ZoneReport {
    /// The single plan's zone: `lo` = regressed, `hi` = healthy, `half` where P(PASS) = 0.5.
    pub single: Option<Zone>,
    /// The sequential plan's zone.
    pub sequential: Option<Zone>,
    /// The same risks at the healthy rate and a regressed rate halfway up to it; `null` when
    /// no plan within gate's limits meets them.
    pub narrower: Option<Narrower>,
}

/// The plans that halve the zone, and their expected trials.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Narrower {
    /// The healthy rate (unchanged).
    pub healthy: f64,
    /// The regressed rate, halfway between the original regressed and healthy rates.
    pub regressed: f64,
    /// The smallest single plan: trials.
    pub single_n: u64,
    /// Its acceptance number.
    pub single_c: u64,
    /// Its expected trials with curtailment, healthy.
    pub single_curtailed_asn_healthy: f64,
    /// The same, at the narrower regressed rate.
    pub single_curtailed_asn_regressed: f64,
    /// The sequential plan (same kind as the one designed): expected trials when healthy;
    /// `null` when none exists within its default truncation.
    pub sequential_asn_healthy: Option<f64>,
    /// Expected trials at the narrower regressed rate.
    pub sequential_asn_regressed: Option<f64>,
}

/// What [`ZoneReport::build`] needs from the designed plans.
pub struct Designed<'a> {
    /// Healthy rate.
    pub healthy: f64,
    /// Regressed rate.
    pub regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// The single plan's lattice.
    pub single: &'a Boundaries,
    /// The sequential plan's lattice.
    pub sequential: &'a Boundaries,
    /// Whether the sequential plan is Wald's (else calibrated).
    pub wald: bool,
}

impl ZoneReport {
    /// The zones of both plans and the design that halves them.
    pub fn build(d: &Designed<'_>) -> ZoneReport {
        ZoneReport {
            single: Zone::of(d.single, d.regressed, d.healthy),
            sequential: Zone::of(d.sequential, d.regressed, d.healthy),
            narrower: narrower(d.healthy, d.regressed, d.alpha, d.beta, d.wald),
        }
    }
}

/// The design that halves the zone of the plans for these rates and risks: it depends on
/// nothing the plans computed, so `gate plan` designs it beside them (on another thread).
pub(crate) fn narrower(
    healthy: f64,
    regressed: f64,
    alpha: f64,
    beta: f64,
    wald: bool,
) -> Option<Narrower> {
    let (h, r) = (healthy, 0.5 * (healthy + regressed));
    // A design the statistics refuse (too many trials) is simply not offered.
    let single = design::design_single(h, r, alpha, beta).ok()?;
    let single_lattice = Boundaries::single(single.n, single.c).ok()?;
    let sequential = sequential(h, r, alpha, beta, wald);
    let at = sequential.as_ref().map(|b| super::pair(b, h, r));
    Some(Narrower {
        healthy: h,
        regressed: r,
        single_n: single.n,
        single_c: single.c,
        single_curtailed_asn_healthy: single_lattice.oc(h).asn,
        single_curtailed_asn_regressed: single_lattice.oc(r).asn,
        sequential_asn_healthy: at.map(|[h, _]| h.asn),
        sequential_asn_regressed: at.map(|[_, r]| r.asn),
    })
}

/// The sequential rule `gate plan` would design at these rates with its default truncation.
fn sequential(h: f64, r: f64, alpha: f64, beta: f64, wald: bool) -> Option<Boundaries> {
    let max_trials = default_max_trials(h, r, alpha, beta).ok()?;
    if wald {
        let sprt = Sprt::new(h, r, alpha, beta, max_trials).ok()?;
        sprt.check_reachable().ok()?;
        Some(Boundaries::wald(&sprt))
    } else {
        calibrated::design_calibrated(h, r, alpha, beta, Some(max_trials))
            .ok()
            .map(|d| d.boundaries)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_narrower_design_halves_the_zone_and_costs_more_trials() {
        let single = Boundaries::single(33, 6).unwrap();
        let seq = calibrated::design_calibrated(0.9, 0.7, 0.05, 0.10, None)
            .unwrap()
            .boundaries;
        let z = ZoneReport::build(&Designed {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.10,
            single: &single,
            sequential: &seq,
            wald: false,
        });
        let n = z.narrower.unwrap();
        assert!((n.regressed - 0.8).abs() < 1e-12);
        // The narrower single plan is the one `design_single` gives for 90% vs 80%, and it
        // meets both risks there.
        let narrower = Boundaries::single(n.single_n, n.single_c).unwrap();
        assert!(narrower.oc(0.9).p_pass >= 0.95 && narrower.oc(0.8).p_pass <= 0.10);
        assert!(n.single_n > 33);
        assert!(n.sequential_asn_healthy.unwrap() > seq.oc(0.9).asn);
        let half = z.single.unwrap().half;
        assert!((single.oc(half).p_pass - 0.5).abs() < 1e-12);
    }
}
