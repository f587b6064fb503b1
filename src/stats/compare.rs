//! `compare`: is head worse than base? A paired sequential test that needs no pass rate.
//!
//! Each **pair** runs a task once on head and once on base. Concordant pairs (both pass, both
//! fail) say nothing about a difference; among the **discordant** pairs let
//! θ = P(head fails and base passes | discordant). Whatever the base rate and whatever the
//! correlation inside a pair, head's rate minus base's rate is P(head-only pass) −
//! P(head-only fail), so θ = 1/2 exactly when the two rates are equal.
//!
//! The decision is a one-sample sequential rule on the discordant stream, in pair order: a
//! discordant pair is a "success" when head wins and a "failure" when head loses, so
//!
//! ```text
//! H0 (no regression)  θ = 1/2        success rate 1/2
//! H1 (regression)     θ = R/(1+R)    success rate 1/(1+R)
//! ```
//!
//! where R is the **odds ratio** to detect (head loses R discordant pairs for each one it
//! wins). Under independent pairs with pass rates b (base) and h (head),
//! θ = b(1-h) / [b(1-h) + h(1-b)], so θ = R/(1+R) exactly when
//! R = [b/(1-b)] / [h/(1-h)], the odds ratio of the two rates: base 90% against head 80% is
//! R = 2.25. The rule is built with the one-sample design machinery ([`calibrated`] by
//! default, [`sprt`] on request) and published as the same [`Boundaries`] lattice, with
//! trials = discordant pairs and failures = head losses, so every figure recomputes from it.
//!
//! ## Truncation and what the risks promise
//!
//! A run stops at the lattice's verdict or after `max_pairs` pairs (INCONCLUSIVE). Pairs are
//! independent and identically distributed: each is discordant with probability d and, given
//! that, a head loss with probability θ; the discordant outcomes are independent of where
//! the discordant pairs fall. So if the lattice stops at discordant pair t (probability
//! s(t) from its DP), the run reaches it iff Binomial(max_pairs, d) >= t, and
//!
//! ```text
//! P(PASS) = Σ_t s_PASS(t) · P(Bin(M, d) >= t)                     M = max_pairs
//! E[pairs] = Σ_t s(t) · E[min(T_t, M)],  T_t the pair of the t-th discordant (negative binomial)
//!          = Σ_t s(t) · [ (t/d) P(Bin(M+1, d) >= t+1) + M P(Bin(M, d) < t) ]
//! ```
//!
//! (k P(T_t = k) = (t/d) P(T_{t+1} = k+1), which sums to the first term.) All of it is exact;
//! it depends on the pair distribution only through (d, θ), so correlated pairs are covered
//! by the same formula with their own d and θ.
//!
//! Truncation only turns verdicts into INCONCLUSIVE, so for EVERY base rate and EVERY
//! correlation inside a pair, exactly:
//!
//! - P(PASS | θ >= θ1) <= P(PASS | θ1) of the lattice <= beta;
//! - P(FAIL | θ <= 1/2) <= P(FAIL | 1/2) of the lattice <= alpha.
//!
//! P(not PASS | θ = 1/2) — alpha with `on_inconclusive: fail` — cannot be bounded for every
//! base rate by any test with a finite `max_pairs`: as d → 0 (head and base both pass, or both
//! fail, almost always) no pair ever says anything and every run ends INCONCLUSIVE. So the
//! design promises it down to a **discordance floor** d_min (default [`DISCORDANCE_FLOOR`],
//! one pair in ten discordant: independent pairs with equal rates between 5.3% and 94.7%).
//! It is decreasing in d (more discordant pairs reach further into the lattice), so its
//! maximum over all pair distributions with d >= d_min is its value at d_min, and that is
//! what [`CompareDesign::realised_alpha`] reports. To leave room for the truncation, the
//! lattice is designed at `alpha · (1 - TRUNCATION_SHARE)`, and the default `max_pairs` is
//! the smallest number of pairs that keeps P(not PASS | θ = 1/2) <= alpha at d_min.
//! [`CompareDesign::min_discordance_for_alpha`] gives the exact floor for any `max_pairs`.

use super::lattice::{Boundaries, Oc};
pub use super::pair_oc::{PairModel, PairOc};
use super::pair_oc::{stops_by_discordant, truncate};
use super::{MIN_RISK, StatsError, calibrated, check_open, check_risk, sprt};

/// Producer's risk when none is given.
pub const DEFAULT_ALPHA: f64 = 0.05;
/// Consumer's risk when none is given.
pub const DEFAULT_BETA: f64 = 0.10;
/// The default discordance floor: P(not PASS | head = base) <= alpha is promised for every
/// pair distribution with at least this share of discordant pairs. One in ten covers
/// independent pairs with equal rates between 5.3% and 94.7%; agents closer to 0% or 100%
/// seldom disagree, each discordant pair costs more than ten pairs, and the default
/// `max_pairs` would have to grow in proportion.
pub const DISCORDANCE_FLOOR: f64 = 0.1;
/// The share of alpha kept back for the `max_pairs` truncation: the lattice is designed at
/// `alpha · (1 - TRUNCATION_SHARE)`. The design spends slightly more expected discordant
/// pairs for it (`scripts/bench-plan.sh` shows the distance to Wald's bound at the full
/// alpha), and in exchange a finite default `max_pairs` keeps the full alpha at the floor.
pub const TRUNCATION_SHARE: f64 = 0.05;
/// The largest `max_pairs` accepted: beyond it no CI gate runs, and the exact sums stay fast.
pub const MAX_PAIRS_LIMIT: u64 = 10_000_000;

/// Which one-sample rule decides on the discordant stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CompareRule {
    /// The calibrated optimal truncated test ([`calibrated::design_calibrated`]).
    #[default]
    Calibrated,
    /// Wald's SPRT with its textbook thresholds ([`sprt::Sprt`]).
    Wald,
}

impl CompareRule {
    /// `calibrated` or `wald`, as in the plan file.
    pub fn as_str(self) -> &'static str {
        match self {
            CompareRule::Calibrated => "calibrated",
            CompareRule::Wald => "wald",
        }
    }
}

/// The regression to detect: an odds ratio, or two rates translated to one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Effect {
    /// Head loses R discordant pairs for each one it wins (R > 1).
    OddsRatio(f64),
    /// Base's pass rate and the regressed rate of head that must be caught, both in (0, 1)
    /// with regressed < base; translated to R under independent pairs.
    Rates {
        /// Base's per-trial pass rate.
        base: f64,
        /// Head's regressed per-trial pass rate.
        regressed: f64,
    },
}

impl Effect {
    /// The odds ratio R, validated (finite, > 1; rates in (0, 1), regressed below base).
    pub fn odds_ratio(&self) -> Result<f64, StatsError> {
        match *self {
            Effect::OddsRatio(r) => {
                if r.is_finite() && r > 1.0 {
                    Ok(r)
                } else {
                    Err(StatsError::OutOfRange {
                        name: "odds_ratio",
                        range: "a number greater than 1 (head loses R discordant pairs for each \
                                one it wins; 1 is no regression)",
                        value: r,
                    })
                }
            }
            Effect::Rates { base, regressed } => {
                check_open("base", base, 0.0, 1.0, "strictly between 0 and 1")?;
                check_open("regressed", regressed, 0.0, 1.0, "strictly between 0 and 1")?;
                if regressed >= base {
                    return Err(StatsError::NotWorse { base, regressed });
                }
                Ok(odds_ratio_of_rates(base, regressed))
            }
        }
    }
}

/// The odds ratio [b/(1-b)] / [h/(1-h)] of a base rate b to a head rate h (rates in (0, 1)).
pub fn odds_ratio_of_rates(base: f64, head: f64) -> f64 {
    (base / (1.0 - base)) / (head / (1.0 - head))
}

/// The head rate whose odds ratio to `base` is `odds_ratio`: b / (b + R (1 - b)).
pub fn rate_at_odds_ratio(base: f64, odds_ratio: f64) -> f64 {
    base / (base + odds_ratio * (1.0 - base))
}

/// What to design: the effect, the risks, the truncation and the rule.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompareSpec {
    /// The regression to detect.
    pub effect: Effect,
    /// Producer's risk: P(not PASS | head = base) at discordance >= `min_discordance`.
    pub alpha: f64,
    /// Consumer's risk: P(PASS | θ = θ1), for every base rate.
    pub beta: f64,
    /// Pairs after which an undecided run is INCONCLUSIVE (default: the smallest number that
    /// keeps alpha at `min_discordance`; see the module doc).
    pub max_pairs: Option<u64>,
    /// Calibrated (default) or Wald's rule on the discordant stream.
    pub rule: CompareRule,
    /// The discordance floor down to which alpha is promised (default
    /// [`DISCORDANCE_FLOOR`]), in (0, 1].
    pub min_discordance: f64,
}

impl CompareSpec {
    /// The spec with every optional setting at its default.
    pub fn new(effect: Effect) -> Self {
        CompareSpec {
            effect,
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            max_pairs: None,
            rule: CompareRule::Calibrated,
            min_discordance: DISCORDANCE_FLOOR,
        }
    }
}

/// A designed compare rule and its exact risks.
#[derive(Debug, Clone, PartialEq)]
pub struct CompareDesign {
    /// The effect as given.
    pub effect: Effect,
    /// The odds ratio R the rule detects.
    pub odds_ratio: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// The rule on the discordant stream.
    pub rule: CompareRule,
    /// Pairs after which an undecided run is INCONCLUSIVE.
    pub max_pairs: u64,
    /// Whether `max_pairs` is the default (derived) one.
    pub max_pairs_is_default: bool,
    /// The discordance floor down to which alpha is promised.
    pub min_discordance: f64,
    /// The producer's risk the lattice was designed at: `alpha · (1 - TRUNCATION_SHARE)`.
    pub lattice_alpha: f64,
    /// The rule: trials = discordant pairs, failures = head losses.
    pub boundaries: Boundaries,
    /// The lattice's exact OC at θ = 1/2 (no `max_pairs` truncation).
    pub at_null: Oc,
    /// The lattice's exact OC at θ = θ1 (no `max_pairs` truncation).
    pub at_alternative: Oc,
}

/// The exact OC of a published compare lattice with the `max_pairs` truncation, when pairs
/// are discordant with probability `d` and a discordant pair is a head loss with probability
/// `theta` (both in [0, 1]; NaN fields outside): what a report or `gate check` states from a
/// recorded rule without designing it again. [`CompareDesign::oc_discordance`] is this with
/// the design's own lattice and `max_pairs`.
pub fn oc_of_lattice(b: &Boundaries, max_pairs: u64, d: f64, theta: f64) -> PairOc {
    if !((0.0..=1.0).contains(&d) && (0.0..=1.0).contains(&theta)) {
        return PairOc {
            p_pass: f64::NAN,
            p_fail: f64::NAN,
            p_inconclusive: f64::NAN,
            p_out_of_pairs: f64::NAN,
            expected_pairs: f64::NAN,
        };
    }
    truncate(&stops_by_discordant(b, theta), d, max_pairs)
}

/// The smallest discordance d at which P(not PASS | θ = 1/2) <= `alpha` for a published
/// lattice with `max_pairs` (it holds for every larger d), to 1e-12; None when not even
/// d = 1 gets there. [`CompareDesign::min_discordance_for_alpha`] is this for a design.
pub fn min_discordance_of_lattice(b: &Boundaries, max_pairs: u64, alpha: f64) -> Option<f64> {
    let by_t = stops_by_discordant(b, 0.5);
    let risk = |d: f64| 1.0 - truncate(&by_t, d, max_pairs).p_pass;
    if risk(1.0) > alpha {
        return None;
    }
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    while hi - lo > 1e-12 {
        let mid = 0.5 * (lo + hi);
        if risk(mid) <= alpha {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
}

impl CompareDesign {
    /// Design the rule. Errors name the parameter: an odds ratio at or below 1, rates outside
    /// (0, 1) or in the wrong order, risks outside [`MIN_RISK`], 0.5), a `max_pairs` outside
    /// 1..=[`MAX_PAIRS_LIMIT`] or too small for any rule meeting both risks.
    pub fn new(spec: &CompareSpec) -> Result<Self, StatsError> {
        let odds_ratio = spec.effect.odds_ratio()?;
        check_risk("alpha", spec.alpha)?;
        check_risk("beta", spec.beta)?;
        if !(spec.min_discordance.is_finite()
            && spec.min_discordance > 0.0
            && spec.min_discordance <= 1.0)
        {
            return Err(StatsError::OutOfRange {
                name: "min_discordance",
                range: "above 0 and at most 1",
                value: spec.min_discordance,
            });
        }
        if let Some(m) = spec.max_pairs
            && !(1..=MAX_PAIRS_LIMIT).contains(&m)
        {
            return Err(StatsError::OutOfRange {
                name: "max_pairs",
                range: "between 1 and 10000000",
                value: m as f64,
            });
        }
        let win_alternative = 1.0 / (1.0 + odds_ratio);
        let lattice_alpha = (spec.alpha * (1.0 - TRUNCATION_SHARE)).max(MIN_RISK);
        // The one-sample truncation (twice the single plan's n), never beyond the pairs.
        let default_trials =
            sprt::default_max_trials(0.5, win_alternative, lattice_alpha, spec.beta)?;
        let max_trials = spec
            .max_pairs
            .map_or(default_trials, |m| m.min(default_trials));
        let boundaries = match spec.rule {
            CompareRule::Calibrated => {
                calibrated::design_calibrated(
                    0.5,
                    win_alternative,
                    lattice_alpha,
                    spec.beta,
                    Some(max_trials),
                )?
                .boundaries
            }
            CompareRule::Wald => {
                let s =
                    sprt::Sprt::new(0.5, win_alternative, lattice_alpha, spec.beta, max_trials)?;
                s.check_reachable()?;
                Boundaries::wald(&s)
            }
        };
        let at_null = boundaries.oc(0.5);
        let at_alternative = boundaries.oc(win_alternative);
        let mut design = CompareDesign {
            effect: spec.effect,
            odds_ratio,
            alpha: spec.alpha,
            beta: spec.beta,
            rule: spec.rule,
            max_pairs: spec.max_pairs.unwrap_or(max_trials),
            max_pairs_is_default: spec.max_pairs.is_none(),
            min_discordance: spec.min_discordance,
            lattice_alpha,
            boundaries,
            at_null,
            at_alternative,
        };
        if spec.max_pairs.is_none() {
            design.max_pairs = design.default_max_pairs();
        }
        Ok(design)
    }

    /// The smallest `max_pairs` (at least the lattice's truncation) with
    /// P(not PASS | θ = 1/2) <= alpha at the discordance floor, by doubling and bisection
    /// (the risk falls as pairs are added). When no number of pairs gets there (a Wald rule
    /// whose own risk is above alpha), `ceil(max_trials / min_discordance)`: enough pairs, on
    /// average, for the lattice to run its full course at the floor.
    fn default_max_pairs(&self) -> u64 {
        let by_t = stops_by_discordant(&self.boundaries, 0.5);
        let k = self.boundaries.max_trials();
        let risk = |m: u64| 1.0 - truncate(&by_t, self.min_discordance, m).p_pass;
        let fallback = ((k as f64 / self.min_discordance).ceil() as u64).clamp(k, MAX_PAIRS_LIMIT);
        if risk(k) <= self.alpha {
            return k;
        }
        let mut hi = k;
        loop {
            let next = hi.saturating_mul(2).min(MAX_PAIRS_LIMIT);
            if next == hi {
                return fallback;
            }
            hi = next;
            if risk(hi) <= self.alpha {
                break;
            }
        }
        // risk(lo) > alpha >= risk(hi).
        let mut lo = hi / 2;
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if risk(mid) <= self.alpha {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        hi
    }

    /// θ1 = R/(1+R): P(head loses | discordant) under the regression to detect.
    pub fn theta1(&self) -> f64 {
        self.odds_ratio / (1.0 + self.odds_ratio)
    }

    /// The lattice's exact OC when a discordant pair is a head loss with probability `theta`
    /// (no `max_pairs` truncation: as many pairs as the lattice needs). `asn` counts
    /// discordant pairs. NaN outside [0, 1].
    pub fn oc_theta(&self, theta: f64) -> Oc {
        self.boundaries.oc(1.0 - theta)
    }

    /// The exact OC with the `max_pairs` truncation when pairs are discordant with
    /// probability `d` and a discordant pair is a head loss with probability `theta`
    /// (both in [0, 1]; NaN fields outside).
    pub fn oc_discordance(&self, d: f64, theta: f64) -> PairOc {
        if !((0.0..=1.0).contains(&d) && (0.0..=1.0).contains(&theta)) {
            return PairOc {
                p_pass: f64::NAN,
                p_fail: f64::NAN,
                p_inconclusive: f64::NAN,
                p_out_of_pairs: f64::NAN,
                expected_pairs: f64::NAN,
            };
        }
        truncate(
            &stops_by_discordant(&self.boundaries, theta),
            d,
            self.max_pairs,
        )
    }

    /// The exact OC with the `max_pairs` truncation for any pair distribution.
    pub fn oc_pairs(&self, model: &PairModel) -> PairOc {
        // With no discordant pair θ is irrelevant: every run ends out of pairs.
        self.oc_discordance(model.discordance(), model.theta().unwrap_or(0.5))
    }

    /// The exact OC with the `max_pairs` truncation for independent sides with pass rates
    /// `base` and `head`.
    pub fn oc_independent(&self, base: f64, head: f64) -> Result<PairOc, StatsError> {
        Ok(self.oc_pairs(&PairModel::independent(base, head)?))
    }

    /// P(not PASS | θ = 1/2) at discordance `d` with the `max_pairs` truncation: the
    /// producer's risk under `on_inconclusive: fail` for every pair distribution with
    /// equal rates and this discordance.
    pub fn alpha_at_discordance(&self, d: f64) -> f64 {
        1.0 - self.oc_discordance(d, 0.5).p_pass
    }

    /// The realised producer's risk (`on_inconclusive: fail`): the largest P(not PASS | head
    /// = base) over every base rate and correlation with discordance at least
    /// `min_discordance`, i.e. its value at `min_discordance` (it falls as d grows).
    pub fn realised_alpha(&self) -> f64 {
        self.alpha_at_discordance(self.min_discordance)
    }

    /// P(not PASS | θ = 1/2) of the lattice alone: the realised alpha when pairs never run
    /// out (the limit as d → 1), and the largest P(FAIL or the lattice's own INCONCLUSIVE)
    /// for every base rate and correlation.
    pub fn lattice_realised_alpha(&self) -> f64 {
        1.0 - self.at_null.p_pass
    }

    /// The realised producer's risk under `on_inconclusive: pass`: the largest P(FAIL | head
    /// = base) over every base rate and correlation (the lattice's, as d → 1).
    pub fn realised_fail_alpha(&self) -> f64 {
        self.at_null.p_fail
    }

    /// The realised consumer's risk: the largest P(PASS | θ = θ1) over every base rate and
    /// correlation (the lattice's; the truncation only lowers it).
    pub fn realised_beta(&self) -> f64 {
        self.at_alternative.p_pass
    }

    /// The smallest discordance d at which P(not PASS | θ = 1/2) <= alpha with this
    /// `max_pairs` (it holds for every larger d), to 1e-12; None when not even d = 1 gets
    /// there (the lattice's own risk is above alpha).
    pub fn min_discordance_for_alpha(&self) -> Option<f64> {
        let by_t = stops_by_discordant(&self.boundaries, 0.5);
        let risk = |d: f64| 1.0 - truncate(&by_t, d, self.max_pairs).p_pass;
        if risk(1.0) > self.alpha {
            return None;
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        while hi - lo > 1e-12 {
            let mid = 0.5 * (lo + hi);
            if risk(mid) <= self.alpha {
                hi = mid;
            } else {
                lo = mid;
            }
        }
        Some(hi)
    }

    /// The equal base and head rates, for independent pairs, at which the alpha promise
    /// holds with this `max_pairs`: the interval where 2b(1-b) >= the smallest discordance
    /// ([`CompareDesign::min_discordance_for_alpha`]). None when no rate qualifies.
    pub fn base_range_for_alpha(&self) -> Option<(f64, f64)> {
        let d = self.min_discordance_for_alpha()?;
        if d > 0.5 {
            return None;
        }
        let half = (1.0 - 2.0 * d).sqrt() / 2.0;
        // Rounded inward a hair, so both ends keep the promise despite rounding.
        let (lo, hi) = (0.5 - half + 1e-9, 0.5 + half - 1e-9);
        (lo <= hi).then_some((lo, hi))
    }

    /// Wald's lower bound on the expected DISCORDANT pairs of any test of θ = 1/2 against
    /// θ1 with the requested risks, at θ = 1/2 and at θ1 (divide by d for pairs).
    pub fn wald_bound(&self) -> (f64, f64) {
        calibrated::wald_bound(0.5, 1.0 / (1.0 + self.odds_ratio), self.alpha, self.beta)
    }

    /// The lattice's expected discordant pairs over Wald's bound, at θ = 1/2 and at θ1
    /// (1 is the information limit).
    pub fn asn_ratio(&self) -> (f64, f64) {
        let (b0, b1) = self.wald_bound();
        (self.at_null.asn / b0, self.at_alternative.asn / b1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::lattice::State;

    fn close(x: f64, y: f64, tol: f64) -> bool {
        (x - y).abs() <= tol * y.abs().max(1.0)
    }

    /// The run by brute force over (pairs, discordant pairs, head losses), pair by pair,
    /// straight from the published rows and the four cells: written independently of the
    /// negative-binomial folding. Returns (P(PASS), P(FAIL), P(INCONCLUSIVE), E[pairs]).
    fn brute(b: &Boundaries, cells: &PairModel, max_pairs: u64) -> (f64, f64, f64, f64) {
        let k = b.max_trials() as usize;
        let (loss, win) = (cells.head_only_fail, cells.base_only_fail);
        let same = cells.both_pass + cells.both_fail;
        // mass[t][f]: undecided after some pairs with t discordant, f losses.
        let mut mass = vec![vec![0.0f64; k + 1]; k + 1];
        mass[0][0] = 1.0;
        let (mut pass, mut fail, mut inc, mut pairs) = (0.0, 0.0, 0.0, 0.0);
        for n in 1..=max_pairs {
            let mut next = vec![vec![0.0f64; k + 1]; k + 1];
            for t in 0..=k {
                for f in 0..=t {
                    let m = mass[t][f];
                    if m == 0.0 {
                        continue;
                    }
                    next[t][f] += m * same;
                    for (df, pr) in [(1usize, loss), (0, win)] {
                        let (t2, f2) = (t + 1, f + df);
                        let mm = m * pr;
                        match b.decide(t2 as u64, f2 as u64) {
                            State::Continue => next[t2][f2] += mm,
                            State::Pass => {
                                pass += mm;
                                pairs += mm * n as f64;
                            }
                            State::Fail => {
                                fail += mm;
                                pairs += mm * n as f64;
                            }
                            State::Truncated => {
                                inc += mm;
                                pairs += mm * n as f64;
                            }
                        }
                    }
                }
            }
            mass = next;
        }
        let left: f64 = mass.iter().flatten().sum();
        (pass, fail, inc + left, pairs + left * max_pairs as f64)
    }

    fn design(r: f64, alpha: f64, beta: f64, max_pairs: Option<u64>) -> CompareDesign {
        CompareDesign::new(&CompareSpec {
            alpha,
            beta,
            max_pairs,
            ..CompareSpec::new(Effect::OddsRatio(r))
        })
        .expect("design")
    }

    #[test]
    fn rates_translate_to_the_odds_ratio_and_back() {
        assert!(close(odds_ratio_of_rates(0.9, 0.8), 2.25, 1e-12));
        assert!(close(rate_at_odds_ratio(0.9, 2.25), 0.8, 1e-12));
        let e = Effect::Rates {
            base: 0.9,
            regressed: 0.8,
        };
        assert!(close(e.odds_ratio().unwrap(), 2.25, 1e-12));
        // Under independence θ of those rates is exactly θ1 = R / (1 + R).
        let m = PairModel::independent(0.9, 0.8).unwrap();
        assert!(close(m.theta().unwrap(), 2.25 / 3.25, 1e-12));
        assert!(close(m.discordance(), 0.9 * 0.2 + 0.8 * 0.1, 1e-12));
        assert!(close(m.base_rate(), 0.9, 1e-12) && close(m.head_rate(), 0.8, 1e-12));
    }

    #[test]
    fn bad_effects_are_errors_naming_the_parameter() {
        for r in [1.0, 0.5, -2.0, f64::NAN, f64::INFINITY] {
            assert!(
                matches!(
                    Effect::OddsRatio(r).odds_ratio(),
                    Err(StatsError::OutOfRange {
                        name: "odds_ratio",
                        ..
                    })
                ),
                "{r}"
            );
        }
        let rates = |base, regressed| Effect::Rates { base, regressed }.odds_ratio();
        assert_eq!(
            rates(0.8, 0.9),
            Err(StatsError::NotWorse {
                base: 0.8,
                regressed: 0.9
            })
        );
        assert!(matches!(rates(0.8, 0.8), Err(StatsError::NotWorse { .. })));
        assert!(matches!(
            rates(1.0, 0.8),
            Err(StatsError::OutOfRange { name: "base", .. })
        ));
        assert!(matches!(
            rates(0.9, 0.0),
            Err(StatsError::OutOfRange {
                name: "regressed",
                ..
            })
        ));
        let spec = CompareSpec {
            max_pairs: Some(0),
            ..CompareSpec::new(Effect::OddsRatio(2.0))
        };
        assert!(matches!(
            CompareDesign::new(&spec),
            Err(StatsError::OutOfRange {
                name: "max_pairs",
                ..
            })
        ));
        let spec = CompareSpec {
            max_pairs: Some(5),
            ..CompareSpec::new(Effect::OddsRatio(2.25))
        };
        assert!(matches!(
            CompareDesign::new(&spec),
            Err(StatsError::NoSequential { .. })
        ));
        assert!(PairModel::from_cells(0.5, 0.5, 0.1, 0.0).is_err());
        assert!(PairModel::from_cells(0.5, 0.6, -0.1, 0.0).is_err());
    }

    #[test]
    fn ninety_versus_eighty_meets_every_risk_with_the_default_pairs() {
        let d = CompareDesign::new(&CompareSpec::new(Effect::Rates {
            base: 0.9,
            regressed: 0.8,
        }))
        .unwrap();
        assert!(close(d.odds_ratio, 2.25, 1e-12));
        assert!(d.lattice_realised_alpha() <= d.lattice_alpha);
        assert!(d.realised_alpha() <= 0.05, "{}", d.realised_alpha());
        assert!(d.realised_beta() <= 0.10);
        // The default max_pairs is the smallest that keeps alpha at the floor.
        let by_t = stops_by_discordant(&d.boundaries, 0.5);
        let risk = |m| 1.0 - truncate(&by_t, DISCORDANCE_FLOOR, m).p_pass;
        assert!(risk(d.max_pairs) <= 0.05 && risk(d.max_pairs - 1) > 0.05);
        // The floor for this max_pairs is at or below the design floor.
        let floor = d.min_discordance_for_alpha().unwrap();
        assert!(floor <= DISCORDANCE_FLOOR + 1e-12, "{floor}");
        let (lo, hi) = d.base_range_for_alpha().unwrap();
        assert!(lo < 0.06 && hi > 0.94, "{lo} {hi}");
        // The published lattice decides alone: recompute from its rows.
        let again = Boundaries::new(d.boundaries.rows().to_vec()).unwrap();
        assert_eq!(again.oc(0.5), d.at_null);
        eprintln!(
            "R 2.25: max_trials {}, max_pairs {}, ASN {:.1}/{:.1} vs bound {:?}",
            d.boundaries.max_trials(),
            d.max_pairs,
            d.at_null.asn,
            d.at_alternative.asn,
            d.wald_bound()
        );
        let (r0, r1) = d.asn_ratio();
        assert!(r0 <= 1.10 && r1 <= 1.10, "{r0} {r1}");
    }

    #[test]
    fn alpha_holds_on_a_grid_of_base_rates_and_for_correlated_pairs() {
        for (r, alpha, beta) in [(2.25, 0.05, 0.10), (4.0, 0.1, 0.2), (1.8, 0.05, 0.05)] {
            let d = design(r, alpha, beta, None);
            let floor = d.min_discordance_for_alpha().unwrap();
            for i in 1..100 {
                let b = f64::from(i) / 100.0;
                // Independent sides, head = base.
                let m = PairModel::independent(b, b).unwrap();
                let oc = d.oc_pairs(&m);
                assert!(oc.p_fail <= alpha, "{r} at {b}: {oc:?}");
                if m.discordance() >= floor {
                    assert!(1.0 - oc.p_pass <= alpha, "{r} at {b}: {oc:?}");
                }
                // Correlated sides with the same rates: any head-only-fail share x with
                // x <= min(b, 1 - b), from perfectly correlated (x = 0) up.
                for j in 0..=10 {
                    let x = b.min(1.0 - b) * f64::from(j) / 10.0;
                    let m = PairModel::from_cells((b - x).max(0.0), (1.0 - b - x).max(0.0), x, x)
                        .unwrap();
                    let oc = d.oc_pairs(&m);
                    assert!(oc.p_fail <= alpha, "{r} at {b}, {x}: {oc:?}");
                    if m.discordance() >= d.min_discordance {
                        assert!(1.0 - oc.p_pass <= alpha, "{r} at {b}, {x}: {oc:?}");
                    }
                }
                // The regression to detect, at this base rate: beta for every base rate.
                let h = rate_at_odds_ratio(b, r);
                let oc = d.oc_independent(b, h).unwrap();
                assert!(oc.p_pass <= beta, "{r} at {b} vs {h}: {oc:?}");
                // A head better than base fails even less often.
                let better = rate_at_odds_ratio(b, 1.0 / r);
                assert!(d.oc_independent(b, better).unwrap().p_fail <= alpha);
            }
        }
    }

    #[test]
    fn the_oc_of_a_recorded_lattice_is_the_designs() {
        let d = design(2.25, 0.05, 0.1, Some(300));
        for (disc, theta) in [(0.1, 0.5), (0.26, 0.69), (1.0, 0.5), (0.0, 0.5)] {
            assert_eq!(
                oc_of_lattice(&d.boundaries, d.max_pairs, disc, theta),
                d.oc_discordance(disc, theta)
            );
        }
        assert!(oc_of_lattice(&d.boundaries, 300, 1.5, 0.5).p_pass.is_nan());
        assert_eq!(
            min_discordance_of_lattice(&d.boundaries, d.max_pairs, d.alpha),
            d.min_discordance_for_alpha()
        );
    }

    #[test]
    fn out_of_pairs_when_nothing_is_ever_discordant() {
        let d = design(2.25, 0.05, 0.1, Some(300));
        let oc = d.oc_independent(1.0, 1.0).unwrap();
        assert_eq!((oc.p_pass, oc.p_fail, oc.p_out_of_pairs), (0.0, 0.0, 1.0));
        assert_eq!(oc.expected_pairs, 300.0);
        // All discordant: pairs are discordant pairs.
        let oc = d.oc_discordance(1.0, 0.5);
        let lattice = d.oc_theta(0.5);
        assert!(close(oc.p_pass, lattice.p_pass, 1e-12));
        assert!(close(oc.expected_pairs, lattice.asn, 1e-12));
    }

    #[test]
    fn wald_rule_is_the_sprt_lattice_on_discordant_pairs() {
        let spec = CompareSpec {
            rule: CompareRule::Wald,
            ..CompareSpec::new(Effect::OddsRatio(3.0))
        };
        let d = CompareDesign::new(&spec).unwrap();
        let s =
            sprt::Sprt::new(0.5, 0.25, d.lattice_alpha, 0.1, d.boundaries.max_trials()).unwrap();
        assert_eq!(d.boundaries, Boundaries::wald(&s));
    }

    /// Run compare pairs the way a runner would: draw a pair's four cells, feed discordant
    /// pairs to the published lattice, stop at a verdict or `max_pairs`.
    #[test]
    fn exact_oc_matches_seeded_monte_carlo() {
        struct SplitMix64(u64);
        impl SplitMix64 {
            fn next_f64(&mut self) -> f64 {
                self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
                let mut z = self.0;
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z >> 11) as f64 / (1u64 << 53) as f64
            }
        }
        let d = design(2.25, 0.05, 0.10, Some(400));
        let runs = 40_000u32;
        for (seed, base, head) in [
            (7u64, 0.9, 0.9),
            (8, 0.9, 0.8),
            (9, 0.6, 0.5),
            (10, 0.97, 0.97),
        ] {
            let exact = d.oc_independent(base, head).unwrap();
            let mut rng = SplitMix64(seed);
            let (mut pass, mut fail, mut sum, mut sum2) = (0u32, 0u32, 0.0f64, 0.0f64);
            for _ in 0..runs {
                let (mut t, mut f, mut n) = (0u64, 0u64, 0u64);
                let state = loop {
                    if n == d.max_pairs {
                        break State::Truncated;
                    }
                    n += 1;
                    let head_pass = rng.next_f64() < head;
                    let base_pass = rng.next_f64() < base;
                    if head_pass == base_pass {
                        continue;
                    }
                    t += 1;
                    f += u64::from(base_pass);
                    match d.boundaries.decide(t, f) {
                        State::Continue => {}
                        s => break s,
                    }
                };
                match state {
                    State::Pass => pass += 1,
                    State::Fail => fail += 1,
                    _ => {}
                }
                sum += n as f64;
                sum2 += (n * n) as f64;
            }
            let n = f64::from(runs);
            for (name, count, prob) in [("pass", pass, exact.p_pass), ("fail", fail, exact.p_fail)]
            {
                let se = (prob * (1.0 - prob) / n).sqrt().max(1e-4);
                let got = f64::from(count) / n;
                assert!(
                    (got - prob).abs() <= 4.0 * se,
                    "{base}/{head} {name}: {got} vs {prob}"
                );
            }
            let mean = sum / n;
            let se = ((sum2 / n - mean * mean) / n).sqrt();
            assert!(
                (mean - exact.expected_pairs).abs() <= 4.0 * se,
                "{base}/{head} pairs: {mean} vs {}",
                exact.expected_pairs
            );
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(20))]

        /// The exact OC with truncation against the brute-force pair DP over random designs,
        /// rules, truncations and (correlated) pair distributions.
        #[test]
        fn exact_oc_matches_the_brute_pair_dp(
            r in 2.5f64..8.0,
            alpha in 0.05f64..0.25,
            beta in 0.05f64..0.25,
            wald in proptest::bool::ANY,
            stretch in 1.0f64..3.0,
            both_pass in 0.0f64..1.0,
            loss in 0.0f64..1.0,
            win in 0.0f64..1.0,
        ) {
            let rule = if wald { CompareRule::Wald } else { CompareRule::Calibrated };
            let base = CompareDesign::new(&CompareSpec {
                alpha, beta, rule, ..CompareSpec::new(Effect::OddsRatio(r))
            });
            proptest::prop_assume!(base.is_ok());
            let k = base.unwrap().boundaries.max_trials();
            proptest::prop_assume!(k <= 80);
            let max_pairs = (k as f64 * stretch).round() as u64;
            let d = CompareDesign::new(&CompareSpec {
                alpha, beta, rule, max_pairs: Some(max_pairs),
                ..CompareSpec::new(Effect::OddsRatio(r))
            }).unwrap();
            // Four cells: a concordant share split into both pass / both fail, the rest
            // split into head losses and head wins.
            let concordant = 0.1 + 0.85 * both_pass;
            let total = loss + win;
            proptest::prop_assume!(total > 0.0);
            let disc = 1.0 - concordant;
            let cells = PairModel::from_cells(
                concordant * both_pass, concordant * (1.0 - both_pass),
                disc * loss / total, disc * win / total,
            ).unwrap();
            let got = d.oc_pairs(&cells);
            let (pass, fail, inc, pairs) = brute(&d.boundaries, &cells, max_pairs);
            proptest::prop_assert!(close(got.p_pass, pass, 1e-10), "{got:?} vs {pass}");
            proptest::prop_assert!(close(got.p_fail, fail, 1e-10), "{got:?} vs {fail}");
            proptest::prop_assert!(close(got.p_inconclusive, inc, 1e-10), "{got:?} vs {inc}");
            proptest::prop_assert!(close(got.expected_pairs, pairs, 1e-9), "{got:?} vs {pairs}");
        }
    }
}
