//! Exact statistics for acceptance sampling: pure functions, no I/O.
//!
//! - [`binomial`]: binomial probabilities, exact and stable in log space.
//! - [`design`]: the smallest single plan (n, c) meeting both risks.
//! - [`calibrated`]: the default sequential rule, a searched truncated test whose exact
//!   risks meet the request, and Wald's lower bound on any test's expected trials.
//! - [`compare`]: head against base in pairs: the sequential rule on discordant pairs, its
//!   exact OC with the `max_pairs` truncation for any pair distribution ([`pair_oc`]: one
//!   pair's outcomes and the fold into `max_pairs` pairs; [`loss_route`]: the second PASS
//!   route, on head's losses among all pairs).
//! - [`sprt`]: Wald's sequential probability ratio test: its LLR, and the lattice it
//!   decides by.
//! - [`lattice`]: every rule (single, Wald, calibrated, staged, compare's discordant rule) as
//!   PASS / FAIL boundaries on the (trials, failures) lattice, and the one OC engine: exact
//!   OC, ASN and terminal-state distribution (the single plan's in closed form).
//! - [`staged`]: group-sequential rules that decide only after each stage of B trials
//!   (each stage a matrix of parallel shards), with exact OC, expected trials and stages.
//! - [`estimate`]: unbiased pass@k and pass^k, Wilson and Clopper–Pearson intervals (for a
//!   fixed number of trials).
//! - [`post_stop`]: estimates after a stop — exact intervals and median-unbiased estimates
//!   under the stage-wise ordering of any lattice rule.
//! - [`zone`]: the indifference zone between the two rates, and the rate in it where a rule
//!   passes half the time.
//!
//! Every reported probability is exact (invariant 7): sums of binomial terms or a DP, never
//! Monte Carlo and never Wald's approximations. Monte Carlo appears only in tests.

pub mod binomial;
pub mod calibrated;
pub mod compare;
pub mod design;
pub mod estimate;
pub mod lattice;
pub mod loss_route;
pub mod pair_oc;
pub mod post_stop;
pub mod sprt;
pub mod staged;
pub mod zone;

/// Which sequential rule decides: the one name of the two kinds, read from a plan's
/// `rule:` (in `sequential:`, `stages:` and `compare:`), from `gate plan --rule`, and given
/// to the designs ([`compare::CompareSpec::rule`] among them). The ledger records the rule
/// that ran with its lattice instead (`model::SequentialRule`), so that a replay never
/// designs it again.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    serde::Deserialize,
    schemars::JsonSchema,
    clap::ValueEnum,
)]
#[serde(rename_all = "snake_case")]
// The plan schema's words for it (schemas/plan.schema.json is a snapshot).
#[schemars(description = "Which sequential rule a `sequential:` block runs.")]
pub enum SequentialKind {
    /// Exact risks within the request, close to the fewest expected trials (the default).
    #[default]
    #[value(help = "The calibrated rule (default)")]
    Calibrated,
    /// Wald's SPRT with his textbook thresholds.
    #[value(help = "Wald's SPRT with his textbook thresholds")]
    Wald,
}

impl SequentialKind {
    /// `calibrated` or `wald`, as in the plan file.
    pub fn as_str(self) -> &'static str {
        match self {
            SequentialKind::Calibrated => "calibrated",
            SequentialKind::Wald => "wald",
        }
    }
}

/// Run `a` on a second thread while `b` runs on this one, and return both results. Each
/// computation is unchanged (the same operations in the same order, on its own thread), so
/// the results are bit-identical to running them one after the other; on a machine with
/// two cores the wall time is the longer of the two instead of their sum. A panic in `a`
/// resumes on this thread.
pub fn join<A: Send, B>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|s| {
        let handle = s.spawn(a);
        let b = b();
        let a = handle
            .join()
            .unwrap_or_else(|e| std::panic::resume_unwind(e));
        (a, b)
    })
}

/// Invalid arguments to a statistical function. Messages name the parameter and the range.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// A parameter is outside its allowed range.
    #[error("`{name}` must be {range}, got {value}{}", crate::units::percent_hint(name, *value))]
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
    /// A single plan whose acceptance number lets every run pass.
    #[error(
        "acceptance number `c` ({c}) must be less than `n` ({n}); with c >= n every run passes"
    )]
    AcceptsAll {
        /// Trials.
        n: u64,
        /// Acceptance number.
        c: u64,
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

/// The largest truncation (`n` of a single plan, `max_trials` of a sequential one, rows of a
/// lattice) anything in `gate` accepts. Beyond it the exact DP would take minutes, and no CI
/// gate spends a million trials on one task.
pub const MAX_TRIALS_LIMIT: u64 = 1_000_000;

/// [`MAX_TRIALS_LIMIT`] as the range an error message states.
pub const MAX_TRIALS_RANGE: &str = "between 1 and 1000000";

/// Check a truncation (`n`, `max_trials`) is in 1..=[`MAX_TRIALS_LIMIT`]; `name` is the
/// parameter as the user spells it.
pub fn check_trials(name: &'static str, value: u64) -> Result<(), StatsError> {
    if (1..=MAX_TRIALS_LIMIT).contains(&value) {
        Ok(())
    } else {
        Err(StatsError::OutOfRange {
            name,
            range: MAX_TRIALS_RANGE,
            value: value as f64,
        })
    }
}

/// Check the four parameters of a test of `healthy` against `regressed`: rates strictly in
/// (0, 1) with healthy > regressed, risks in [[`MIN_RISK`], 0.5). Every rate and risk a user
/// gives (plan file, `gate plan`, `gate explain`, a recorded plan's rates) is checked here;
/// the designs themselves accept risks down to [`MIN_RULE_RISK`] ([`check_rule_rates`]).
pub fn check_rates(healthy: f64, regressed: f64, alpha: f64, beta: f64) -> Result<(), StatsError> {
    check_open("healthy", healthy, 0.0, 1.0, "strictly between 0 and 1")?;
    check_open("regressed", regressed, 0.0, 1.0, "strictly between 0 and 1")?;
    check_risk("alpha", alpha)?;
    check_risk("beta", beta)?;
    if healthy <= regressed {
        return Err(StatsError::NotSeparated { healthy, regressed });
    }
    Ok(())
}

/// The smallest alpha or beta the design accepts. A risk of one in a million already asks
/// for hundreds of trials at any useful separation; below it the exact sums lose meaning
/// (1e-320 is a subnormal double) long before a gate could spend the trials.
pub const MIN_RISK: f64 = 1e-6;

/// The smallest risk a rule may be designed at, below [`MIN_RISK`]: a suite's family gives
/// each of its K cases Šidák's share of the suite's alpha (`crate::plan::family`), about
/// alpha / K, so 100,000 cases at 5% ask for 5.1e-7 per case. What the user floor protects
/// does not bind here: a sequential rule's earliest PASS depends on beta, not alpha (90% vs
/// 70%: 9 straight passes at 0.05 and at 5e-7), its truncation grows with ln(1/alpha) only,
/// and every exact risk is summed directly (P(FAIL) over FAIL states, not 1 − P(PASS)), so
/// 1e-9 keeps seven significant digits in the double sums. At 5% this admits about 51
/// million cases.
pub const MIN_RULE_RISK: f64 = 1e-9;

/// Check the parameters of a rule being designed or rebuilt: as [`check_rates`], with risks
/// down to [`MIN_RULE_RISK`] (a family's per-case share; what a user asks for is checked
/// by [`check_rates`] where it is read).
pub fn check_rule_rates(
    healthy: f64,
    regressed: f64,
    alpha: f64,
    beta: f64,
) -> Result<(), StatsError> {
    let floor = |name: &'static str, value: f64| {
        if value.is_finite() && (MIN_RULE_RISK..0.5).contains(&value) {
            Ok(())
        } else {
            Err(StatsError::OutOfRange {
                name,
                range: "at least 0.000000001 (one in a billion) and below 0.5",
                value,
            })
        }
    };
    check_open("healthy", healthy, 0.0, 1.0, "strictly between 0 and 1")?;
    check_open("regressed", regressed, 0.0, 1.0, "strictly between 0 and 1")?;
    floor("alpha", alpha)?;
    floor("beta", beta)?;
    if healthy <= regressed {
        return Err(StatsError::NotSeparated { healthy, regressed });
    }
    Ok(())
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_trials_range_in_words_is_the_limit() {
        assert_eq!(
            MAX_TRIALS_RANGE,
            format!("between 1 and {MAX_TRIALS_LIMIT}")
        );
        assert!(check_trials("n", MAX_TRIALS_LIMIT).is_ok());
        assert_eq!(
            check_trials("n", 0).unwrap_err().to_string(),
            "`n` must be between 1 and 1000000, got 0"
        );
        assert!(check_trials("n", MAX_TRIALS_LIMIT + 1).is_err());
    }
}
