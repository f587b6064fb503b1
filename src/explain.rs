//! What a CI retry setting measures.
//!
//! "Retry R times on failure" runs up to R + 1 attempts and goes green if any of them
//! passes. That is pass@(R+1) — the probability that at least one of R + 1 independent runs
//! succeeds, `1 - (1 - p)^(R+1)` — and, in acceptance-sampling terms, the single plan
//! (n = R + 1, c = R): it accepts even when R of the R + 1 sampled runs fail. This module
//! computes that reading of a retry setting, its table over typical per-run rates, and (when
//! the user names a healthy and a regressed rate) how it compares with the plan `gate plan`
//! would design for the same rates. Pure functions; the command renders them.

use serde::Serialize;

use crate::stats::lattice::Boundaries;
use crate::stats::{StatsError, design};

/// The most retries `gate explain` accepts. Beyond this the gate passes every agent that
/// ever succeeds, and the arithmetic has nothing left to show.
pub const MAX_RETRIES: u64 = 100;

/// The per-run success rates of the published retry table.
pub const RATES: [f64; 6] = [0.95, 0.90, 0.80, 0.70, 0.60, 0.50];

/// P(the retry gate passes) at per-run success rate `p`: `1 - (1 - p)^(retries + 1)`.
pub fn p_gate_passes(retries: u64, p: f64) -> f64 {
    1.0 - (1.0 - p).powf((retries + 1) as f64)
}

/// P(all retries + 1 runs pass) at per-run rate `p`: `p^(retries + 1)` (pass^k, k = R + 1).
pub fn pass_hat_k(retries: u64, p: f64) -> f64 {
    p.powf((retries + 1) as f64)
}

/// One row of the retry table.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RateRow {
    /// True per-run success rate.
    pub rate: f64,
    /// P(the retry gate passes) = pass@(R+1).
    pub p_gate_passes: f64,
    /// P(all R + 1 runs pass) = pass^(R+1), what a gate without retries over R + 1 runs asks.
    pub pass_hat_k: f64,
}

/// The single plan (n, c) a retry setting amounts to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct EquivalentPlan {
    /// Runs sampled: R + 1.
    pub n: u64,
    /// Failures tolerated: R.
    pub c: u64,
}

/// How one gate treats the healthy and the regressed agent.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct GateRisks {
    /// Runs sampled (at most; both gates may stop early).
    pub n: u64,
    /// Failures tolerated.
    pub c: u64,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(PASS | regressed): the consumer's risk this gate actually runs.
    pub p_pass_regressed: f64,
    /// P(FAIL | regressed) = 1 - P(PASS | regressed): how often it catches the regression.
    pub p_catch_regressed: f64,
}

impl GateRisks {
    fn of_plan(n: u64, c: u64, healthy: f64, regressed: f64) -> Result<Self, StatsError> {
        let plan = Boundaries::single(n, c)?;
        let (h, r) = (plan.oc(healthy), plan.oc(regressed));
        Ok(GateRisks {
            n,
            c,
            p_pass_healthy: h.p_pass,
            p_pass_regressed: r.p_pass,
            p_catch_regressed: r.p_fail,
        })
    }
}

/// The retry gate beside the plan `gate plan` designs for the same rates and risks.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Comparison {
    /// Healthy per-run rate p0.
    pub healthy: f64,
    /// Regressed per-run rate p1.
    pub regressed: f64,
    /// Producer's risk the designed plan meets.
    pub alpha: f64,
    /// Consumer's risk the designed plan meets.
    pub beta: f64,
    /// The retry gate: (R + 1, R).
    pub retry_gate: GateRisks,
    /// The smallest single plan meeting alpha and beta.
    pub plan: GateRisks,
}

/// Everything `gate explain` reports about a retry setting.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    /// The retry setting R.
    pub retries: u64,
    /// Attempts per test: R + 1.
    pub attempts: u64,
    /// The metric the gate computes, e.g. `pass@3`.
    pub measures: String,
    /// The acceptance plan (R + 1, R).
    pub equivalent_plan: EquivalentPlan,
    /// The table over [`RATES`].
    pub rows: Vec<RateRow>,
    /// Present when healthy and regressed rates were given.
    pub comparison: Option<Comparison>,
}

/// Invalid input to [`explain`].
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExplainError {
    /// More retries than [`MAX_RETRIES`].
    #[error("`retries` must be between 0 and {max}, got `{value}`")]
    TooManyRetries {
        /// The value given.
        value: u64,
        /// [`MAX_RETRIES`].
        max: u64,
    },
    /// The comparison's rates or risks are invalid, or no plan exists.
    #[error(transparent)]
    Stats(#[from] StatsError),
}

/// Rates and risks for the comparison with a designed plan.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareWith {
    /// Healthy per-run rate p0.
    pub healthy: f64,
    /// Regressed per-run rate p1.
    pub regressed: f64,
    /// Producer's risk.
    pub alpha: f64,
    /// Consumer's risk.
    pub beta: f64,
}

/// Explain the retry setting `retries`, optionally against a designed plan.
pub fn explain(retries: u64, compare: Option<CompareWith>) -> Result<Explanation, ExplainError> {
    if retries > MAX_RETRIES {
        return Err(ExplainError::TooManyRetries {
            value: retries,
            max: MAX_RETRIES,
        });
    }
    let attempts = retries + 1;
    let rows = RATES
        .iter()
        .map(|&rate| RateRow {
            rate,
            p_gate_passes: p_gate_passes(retries, rate),
            pass_hat_k: pass_hat_k(retries, rate),
        })
        .collect();
    let comparison = match compare {
        None => None,
        Some(w) => {
            crate::stats::check_rates(w.healthy, w.regressed, w.alpha, w.beta)?;
            let plan = design::design_single(w.healthy, w.regressed, w.alpha, w.beta)?;
            Some(Comparison {
                healthy: w.healthy,
                regressed: w.regressed,
                alpha: w.alpha,
                beta: w.beta,
                retry_gate: GateRisks::of_plan(attempts, retries, w.healthy, w.regressed)?,
                plan: GateRisks::of_plan(plan.n, plan.c, w.healthy, w.regressed)?,
            })
        }
    };
    Ok(Explanation {
        retries,
        attempts,
        measures: format!("pass@{attempts}"),
        equivalent_plan: EquivalentPlan {
            n: attempts,
            c: retries,
        },
        rows,
        comparison,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Percent with one decimal, as the article prints most cells.
    fn pct1(x: f64) -> f64 {
        (x * 1000.0).round() / 10.0
    }

    #[test]
    fn two_retries_reproduce_the_published_table() {
        // "Two CI retries turn a 60% agent into a green build": pass@3 and pass^3.
        let published = [
            (0.95, 99.99, 85.7),
            (0.90, 99.9, 72.9),
            (0.80, 99.2, 51.2),
            (0.70, 97.3, 34.3),
            (0.60, 93.6, 21.6),
            (0.50, 87.5, 12.5),
        ];
        let e = explain(2, None).expect("valid");
        assert_eq!(e.measures, "pass@3");
        assert_eq!(e.equivalent_plan, EquivalentPlan { n: 3, c: 2 });
        for (row, (rate, gate, all)) in e.rows.iter().zip(published) {
            assert_eq!(row.rate, rate);
            // 95% is printed with two decimals (99.99%), the rest with one.
            let g = if rate == 0.95 {
                (row.p_gate_passes * 10_000.0).round() / 100.0
            } else {
                pct1(row.p_gate_passes)
            };
            assert_eq!((g, pct1(row.pass_hat_k)), (gate, all), "rate {rate}");
        }
    }

    #[test]
    fn retry_gate_is_the_single_plan_n_r_plus_one_c_r() {
        for r in [0u64, 1, 2, 5, 10] {
            for p in [0.3, 0.6, 0.9] {
                let direct = p_gate_passes(r, p);
                let plan = Boundaries::single(r + 1, r).unwrap().oc(p).p_pass;
                assert!((direct - plan).abs() < 1e-14, "R={r} p={p}");
            }
        }
    }

    #[test]
    fn comparison_with_the_designed_plan() {
        let w = CompareWith {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.10,
        };
        let c = explain(2, Some(w))
            .expect("valid")
            .comparison
            .expect("compared");
        assert_eq!((c.retry_gate.n, c.retry_gate.c), (3, 2));
        assert!((c.retry_gate.p_pass_regressed - 0.973).abs() < 1e-12);
        assert!((c.retry_gate.p_catch_regressed - 0.027).abs() < 1e-12);
        assert_eq!((c.plan.n, c.plan.c), (33, 6));
        assert!(c.plan.p_pass_regressed <= 0.10 && c.plan.p_pass_healthy >= 0.95);
    }

    #[test]
    fn bad_input_is_an_error() {
        assert!(matches!(
            explain(101, None),
            Err(ExplainError::TooManyRetries { value: 101, .. })
        ));
        let w = CompareWith {
            healthy: 0.7,
            regressed: 0.9,
            alpha: 0.05,
            beta: 0.10,
        };
        assert!(matches!(
            explain(2, Some(w)),
            Err(ExplainError::Stats(StatsError::NotSeparated { .. }))
        ));
    }
}
