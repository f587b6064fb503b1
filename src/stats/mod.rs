//! Exact statistics for acceptance sampling: pure functions, no I/O.
//!
//! - [`binomial`]: binomial probabilities, exact and stable in log space.
//! - [`oc`]: the single plan's operating characteristic and curtailed ASN.
//! - [`design`]: the smallest single plan (n, c) meeting both risks.
//! - [`calibrated`]: the default sequential rule, a searched truncated test whose exact
//!   risks meet the request, and Wald's lower bound on any test's expected trials.
//! - [`compare`]: head against base in pairs: the sequential rule on discordant pairs, its
//!   exact OC with the `max_pairs` truncation for any pair distribution.
//! - [`sprt`]: Wald's sequential probability ratio test, with exact OC/ASN by dynamic
//!   programming over the (trials, failures) lattice.
//! - [`lattice`]: any sequential rule as PASS / FAIL boundaries on the (trials, failures)
//!   lattice, with its exact OC, ASN and terminal-state distribution.
//! - [`estimate`]: unbiased pass@k and pass^k, Wilson and Clopper–Pearson intervals (for a
//!   fixed number of trials).
//! - [`post_stop`]: estimates after a stop — exact intervals and median-unbiased estimates
//!   under the stage-wise ordering of any lattice rule.
//!
//! Every reported probability is exact (invariant 7): sums of binomial terms or a DP, never
//! Monte Carlo and never Wald's approximations. Monte Carlo appears only in tests.

pub mod binomial;
pub mod calibrated;
pub mod compare;
pub mod design;
pub mod estimate;
pub mod lattice;
pub mod oc;
pub mod post_stop;
pub mod sprt;

/// Invalid arguments to a statistical function. Messages name the parameter and the range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A parameter is outside its allowed range.
    #[error("`{name}` must be {range}, got {value}")]
    OutOfRange {
        /// The parameter (as the user spells it, e.g. `healthy`).
        name: &'static str,
        /// The allowed range, in words.
        range: &'static str,
        /// The value given.
        value: f64,
    },
    /// The healthy rate is not above the regressed rate.
    #[error("`healthy` ({healthy}) must be greater than `regressed` ({regressed})")]
    NotSeparated {
        /// p0.
        healthy: f64,
        /// p1.
        regressed: f64,
    },
    /// A sequential test truncated before it could ever reach one of its verdicts.
    #[error(
        "`max_trials` ({max_trials}) is too small: the sequential test needs at least {to_pass} trials to PASS and {to_fail} to FAIL"
    )]
    Unreachable {
        /// The truncation given.
        max_trials: u64,
        /// Fewest trials to a PASS (all successes).
        to_pass: u64,
        /// Fewest trials to a FAIL (all failures).
        to_fail: u64,
    },
    /// A boundary lattice that is not a rule (rows out of order, PASS and FAIL overlapping).
    #[error("invalid decision lattice: {reason}")]
    BadLattice {
        /// What is wrong.
        reason: &'static str,
    },
    /// No sequential rule within the truncation meets both risks.
    #[error(
        "no sequential rule with at most {max_trials} trials meets alpha {alpha} and beta {beta}"
    )]
    NoSequential {
        /// The truncation.
        max_trials: u64,
        /// Producer's risk.
        alpha: f64,
        /// Consumer's risk.
        beta: f64,
    },
    /// `compare`: the regressed rate is not below the base rate.
    #[error(
        "`regressed` ({regressed}) must be below `base` ({base}): compare detects a head worse than base"
    )]
    NotWorse {
        /// Base's pass rate.
        base: f64,
        /// The regressed rate of head.
        regressed: f64,
    },
    /// `compare`: four pair cells that are not a probability distribution.
    #[error("invalid pair distribution: {reason}")]
    BadPairModel {
        /// What is wrong.
        reason: &'static str,
    },
    /// No plan within the search limit meets both risks.
    #[error("no single plan with at most {limit} trials meets alpha {alpha} and beta {beta}")]
    NoPlan {
        /// The largest n searched.
        limit: u64,
        /// Producer's risk.
        alpha: f64,
        /// Consumer's risk.
        beta: f64,
    },
}

/// Check a probability-like parameter is strictly inside (lo, hi).
pub(crate) fn check_open(
    name: &'static str,
    value: f64,
    lo: f64,
    hi: f64,
    range: &'static str,
) -> Result<(), StatsError> {
    if value.is_finite() && value > lo && value < hi {
        Ok(())
    } else {
        Err(StatsError::OutOfRange { name, range, value })
    }
}

/// The smallest alpha or beta the design accepts. A risk of one in a million already asks
/// for hundreds of trials at any useful separation; below it the exact sums lose meaning
/// (1e-320 is a subnormal double) long before a gate could spend the trials.
pub const MIN_RISK: f64 = 1e-6;

/// Check a risk (alpha or beta) is in [`MIN_RISK`], 0.5).
pub(crate) fn check_risk(name: &'static str, value: f64) -> Result<(), StatsError> {
    if value.is_finite() && (MIN_RISK..0.5).contains(&value) {
        Ok(())
    } else {
        Err(StatsError::OutOfRange {
            name,
            range: "at least 0.000001 (one in a million) and below 0.5",
            value,
        })
    }
}
