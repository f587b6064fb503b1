//! The design reports of `gate plan`: every figure it publishes, computed once from
//! [`crate::stats`] and kept in the serde types of the JSON contract (docs/statistics.md).
//!
//! Pure: no I/O, no flags, no rendering. `commands/plan.rs` turns the command line into
//! [`OneSampleOptions`] (or [`CompareOptions`]) and a [`DesignError`] into a message naming the
//! flag; `report/design/` renders a report as text, as a terminal curve or as SVG.

use serde::Serialize;

use crate::model::OnInconclusive;
use crate::stats::StatsError;
use crate::stats::lattice::Boundaries;

pub mod compare;
mod evaluate;
mod one_sample;
pub mod zone;

pub use compare::{CompareOptions, CompareReport};
pub use evaluate::{EvaluateLaunched, EvaluateReport, EvaluateRow, EvaluateUnavailable};
pub use one_sample::{
    JobsReport, OcRow, OneSampleOptions, OneSampleReport, SequentialReport, SingleReport,
    StagedOcRow, StagedReport, UnavailableReport, UnavailableRisks,
};

/// The OC of `b` at the healthy and the regressed rate, both in one walk
/// ([`Boundaries::oc_many`]).
pub(crate) fn pair(b: &Boundaries, healthy: f64, regressed: f64) -> [crate::stats::lattice::Oc; 2] {
    let ocs = b.oc_many(&[healthy, regressed]);
    [ocs[0], ocs[1]]
}

/// Why a design could not be made from the options given.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DesignError {
    /// Statistics refused a rate, a risk or a truncation (the parameter is named).
    #[error(transparent)]
    Stats(#[from] StatsError),
    /// The per-trial probability of an unavailable trial is not in [0, 1).
    #[error("the unavailable rate must be at least 0 and below 1, got {0}")]
    UnavailableRate(f64),
    /// Stages × trials per stage exceed the trial limit.
    #[error("the staged rule would run {max_trials} trials, more than the limit of {limit}")]
    StagedTooLong {
        /// Trials the stages asked for would run.
        max_trials: u64,
        /// The limit.
        limit: u64,
    },
    /// No staged rule with these stages meets both risks.
    #[error(
        "no staged rule with stages of {stage} and at most {max_trials} trials meets both risks"
    )]
    NoStaged {
        /// Trials per stage.
        stage: u64,
        /// The truncation searched.
        max_trials: u64,
    },
}

/// One row of a sequential rule's decision lattice, in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LatticeJson {
    /// Graded trials so far (discordant pairs for a compare rule).
    pub trials: u64,
    /// PASS once failures are at most this.
    pub pass_max_failures: Option<u64>,
    /// FAIL once failures are at least this.
    pub fail_min_failures: Option<u64>,
}

impl LatticeJson {
    /// Every row of a lattice, as published.
    pub fn rows(b: &Boundaries) -> Vec<LatticeJson> {
        b.rows()
            .iter()
            .map(|r| LatticeJson {
                trials: r.trials,
                pass_max_failures: r.pass_max_failures,
                fail_min_failures: r.fail_min_failures,
            })
            .collect()
    }
}

/// The rates of the OC table: steps of a quarter of the gap between the two rates, from one
/// gap below `regressed` to half a gap above `healthy`, kept inside [0, 1]. Both rates are
/// on the grid. Values are rounded to 12 decimals so 0.7 + 3 × 0.05 prints as 0.85.
pub fn oc_grid(healthy: f64, regressed: f64) -> Vec<f64> {
    let step = (healthy - regressed) / 4.0;
    (-4..=6)
        .map(|i| ((regressed + f64::from(i) * step) * 1e12).round() / 1e12)
        .filter(|p| (0.0..=1.0).contains(p))
        .collect()
}

/// The producer's risk of a rule under a policy: every non-PASS when an INCONCLUSIVE fails
/// the gate, only FAIL when it passes.
pub(crate) fn alpha_of(policy: OnInconclusive, p_pass: f64, p_fail: f64) -> f64 {
    match policy {
        OnInconclusive::Fail => 1.0 - p_pass,
        OnInconclusive::Pass => p_fail,
    }
}

/// The words for [`alpha_of`].
pub(crate) fn alpha_words(policy: OnInconclusive) -> &'static str {
    match policy {
        OnInconclusive::Fail => "P(not PASS | healthy): an INCONCLUSIVE fails the gate",
        OnInconclusive::Pass => "P(FAIL | healthy): an INCONCLUSIVE passes the gate",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn oc_grid_contains_both_rates_and_stays_in_range() {
        let g = oc_grid(0.9, 0.7);
        assert_eq!(g.first(), Some(&0.5));
        assert_eq!(g.last(), Some(&1.0));
        assert!(g.contains(&0.9) && g.contains(&0.7) && g.contains(&0.85));
        let g = oc_grid(0.999, 0.995);
        assert!(g.contains(&0.999) && g.contains(&0.995));
        assert!(g.iter().all(|p| (0.0..=1.0).contains(p)));
        let g = oc_grid(0.3, 0.1);
        assert_eq!(g.first(), Some(&0.0));
    }
}
