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
use super::loss_route::{DEFAULT_DROP, LOSS_BETA_SHARE, LossRoute};
use super::pair_oc::{PairModel, PairOc, oc_two_routes, stops_by_discordant, truncate};
use super::{MIN_RISK, SequentialKind, StatsError, calibrated, check_open, check_risk, sprt};

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
    pub rule: SequentialKind,
    /// The discordance floor down to which alpha is promised (default
    /// [`DISCORDANCE_FLOOR`]), in (0, 1].
    pub min_discordance: f64,
    /// The size of a regression in points of pass rate (the loss route's D), in (0, 1);
    /// None: base − regressed when the effect is two rates, else [`DEFAULT_DROP`].
    pub drop: Option<f64>,
}

impl CompareSpec {
    /// The spec with every optional setting at its default.
    pub fn new(effect: Effect) -> Self {
        CompareSpec {
            effect,
            alpha: DEFAULT_ALPHA,
            beta: DEFAULT_BETA,
            max_pairs: None,
            rule: SequentialKind::Calibrated,
            min_discordance: DISCORDANCE_FLOOR,
            drop: None,
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
    pub rule: SequentialKind,
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
    /// The size of a regression in points of pass rate (the loss route's D).
    pub drop: f64,
    /// The consumer's risk the lattice was designed at: beta's share left after the loss
    /// route's ([`LOSS_BETA_SHARE`]).
    pub lattice_beta: f64,
    /// The loss route beside the lattice (None when `max_pairs` is too few for it).
    pub loss_route: Option<LossRoute>,
}

/// The exact OC of a published compare lattice with the `max_pairs` truncation, when pairs
/// are discordant with probability `d` and a discordant pair is a head loss with probability
/// `theta` (both in [0, 1]; NaN fields outside): what a report or `gate check` states from a
/// recorded rule without designing it again. [`CompareDesign::oc_discordance`] is this with
/// the design's own lattice and `max_pairs`.
pub fn oc_of_lattice(
    b: &Boundaries,
    loss_route: Option<LossRoute>,
    max_pairs: u64,
    d: f64,
    theta: f64,
) -> PairOc {
    if !((0.0..=1.0).contains(&d) && (0.0..=1.0).contains(&theta)) {
        return PairOc {
            p_pass: f64::NAN,
            p_fail: f64::NAN,
            p_inconclusive: f64::NAN,
            p_out_of_pairs: f64::NAN,
            expected_pairs: f64::NAN,
        };
    }
    match loss_route {
        None => truncate(&stops_by_discordant(b, theta), d, max_pairs),
        Some(_) => oc_two_routes(b, loss_route, max_pairs, d * theta, d * (1.0 - theta)),
    }
}

/// The fewest pairs (up to `cap`) at which P(PASS) of the recorded rule reaches
/// `1 - alpha` when head = base and pairs are discordant with probability `d`, i.e. the
/// `max_pairs` that P(not PASS | head = base) <= alpha would need at that discordance;
/// None when not even `cap` pairs get there. Exact: one DP run to `cap` pairs, since a
/// larger `max_pairs` changes no decision before it.
pub fn max_pairs_for_alpha(
    b: &Boundaries,
    loss_route: Option<LossRoute>,
    d: f64,
    alpha: f64,
    cap: u64,
) -> Option<u64> {
    // With no discordant pair only the loss route can decide (it PASSes once head's losses
    // are rare enough); without one the rule never decides there (review 7, c12).
    if !((0.0..=1.0).contains(&d) && (d > 0.0 || loss_route.is_some())) {
        return None;
    }
    let (mut lo, mut hi) = (0u64, cap);
    let risk = |m: u64| 1.0 - oc_two_routes(b, loss_route, m, d / 2.0, d / 2.0).p_pass;
    if risk(cap) > alpha {
        return None;
    }
    // risk(lo) > alpha >= risk(hi); risk falls as pairs are added.
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if risk(mid) <= alpha {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Some(hi)
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
        let drop = match (spec.drop, spec.effect) {
            (Some(d), _) => d,
            (None, Effect::Rates { base, regressed }) => base - regressed,
            (None, Effect::OddsRatio(_)) => DEFAULT_DROP,
        };
        super::loss_route::check_drop(drop)?;
        let win_alternative = 1.0 / (1.0 + odds_ratio);
        let lattice_alpha = (spec.alpha * (1.0 - TRUNCATION_SHARE)).max(MIN_RISK);
        let lattice_beta = (spec.beta * (1.0 - LOSS_BETA_SHARE)).max(MIN_RISK);
        // The one-sample truncation (twice the single plan's n), never beyond the pairs.
        let default_trials =
            sprt::default_max_trials(0.5, win_alternative, lattice_alpha, lattice_beta)?;
        let max_trials = spec
            .max_pairs
            .map_or(default_trials, |m| m.min(default_trials));
        let boundaries = match spec.rule {
            SequentialKind::Calibrated => {
                calibrated::design_calibrated(
                    0.5,
                    win_alternative,
                    lattice_alpha,
                    lattice_beta,
                    Some(max_trials),
                )?
                .boundaries
            }
            SequentialKind::Wald => {
                let s = sprt::Sprt::new(
                    0.5,
                    win_alternative,
                    lattice_alpha,
                    lattice_beta,
                    max_trials,
                )?;
                s.check_reachable()?;
                Boundaries::wald(&s)
            }
        };
        let at = boundaries.oc_many(&[0.5, win_alternative]);
        let (at_null, at_alternative) = (at[0], at[1]);
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
            drop,
            lattice_beta,
            loss_route: None,
        };
        if spec.max_pairs.is_none() {
            design.max_pairs = design.default_max_pairs();
        }
        // The loss route takes the rest of beta, whatever the lattice left unspent.
        let loss_beta = spec.beta - design.at_alternative.p_pass;
        design.loss_route = LossRoute::design(drop, loss_beta, design.max_pairs)?;
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

    /// [`CompareDesign::oc_theta`] at every θ of `thetas`, bit for bit, in batched walks
    /// ([`Boundaries::oc_many`]).
    pub fn oc_theta_many(&self, thetas: &[f64]) -> Vec<Oc> {
        let ps: Vec<f64> = thetas.iter().map(|&theta| 1.0 - theta).collect();
        self.boundaries.oc_many(&ps)
    }

    /// The exact OC of the whole rule (both routes) with the `max_pairs` truncation when
    /// pairs are discordant with probability `d` and a discordant pair is a head loss with
    /// probability `theta` (both in [0, 1]; NaN fields outside).
    pub fn oc_discordance(&self, d: f64, theta: f64) -> PairOc {
        oc_of_lattice(&self.boundaries, self.loss_route, self.max_pairs, d, theta)
    }

    /// The exact OC of the discordant lattice alone with the `max_pairs` truncation (the
    /// loss route left out): a lower bound on the whole rule's P(PASS), an upper bound on
    /// its P(FAIL) and P(not PASS).
    pub fn oc_lattice_only(&self, d: f64, theta: f64) -> PairOc {
        oc_of_lattice(&self.boundaries, None, self.max_pairs, d, theta)
    }

    /// The loss route's own P(PASS | a regression of `drop` points): the largest over every
    /// base rate and correlation (0 without the route).
    pub fn loss_route_beta(&self) -> f64 {
        self.loss_route
            .map_or(0.0, |r| r.p_pass(self.drop, self.max_pairs))
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

    /// The realised producer's risk (`on_inconclusive: fail`): an upper bound on
    /// P(not PASS | head = base) over every base rate and correlation with discordance at
    /// least `min_discordance` — the lattice alone at `min_discordance` (without the loss
    /// route it falls as d grows, and the loss route only adds PASS verdicts).
    pub fn realised_alpha(&self) -> f64 {
        1.0 - self.oc_lattice_only(self.min_discordance, 0.5).p_pass
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

    /// The realised consumer's risk: an upper bound on P(PASS) for every regression whose
    /// discordant odds are at least R (θ >= θ1) and whose fall is at least `drop` points,
    /// at every base rate and correlation — the lattice's P(PASS | θ1) plus the loss
    /// route's P(PASS | losses at rate `drop`) (a union bound; truncation only lowers both).
    pub fn realised_beta(&self) -> f64 {
        self.at_alternative.p_pass + self.loss_route_beta()
    }

    /// The lattice's own P(PASS | θ = θ1): the consumer's risk for every regression of odds
    /// ratio R, whatever its size in points, when the loss route is left aside.
    pub fn lattice_realised_beta(&self) -> f64 {
        self.at_alternative.p_pass
    }

    /// The fewest pairs that would keep P(not PASS | head = base) <= alpha at discordance
    /// `d` (both routes), up to `cap`; None when not even `cap` pairs get there.
    pub fn max_pairs_for_alpha_at(&self, d: f64, cap: u64) -> Option<u64> {
        max_pairs_for_alpha(&self.boundaries, self.loss_route, d, self.alpha, cap)
    }

    /// The smallest discordance d at which P(not PASS | θ = 1/2) <= alpha with this
    /// `max_pairs` (it holds for every larger d), to 1e-12; None when not even d = 1 gets
    /// there (the lattice's own risk is above alpha).
    pub fn min_discordance_for_alpha(&self) -> Option<f64> {
        // The lattice alone: a bound for the whole rule, which the loss route only helps.
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
    /// θ1 with the requested alpha and the lattice's share of beta, at θ = 1/2 and at θ1 (divide by d for pairs).
    pub fn wald_bound(&self) -> (f64, f64) {
        // At the lattice's share of beta: the loss route holds the rest.
        calibrated::wald_bound(
            0.5,
            1.0 / (1.0 + self.odds_ratio),
            self.alpha,
            self.lattice_beta,
        )
    }

    /// The lattice's expected discordant pairs over Wald's bound, at θ = 1/2 and at θ1
    /// (1 is the information limit).
    pub fn asn_ratio(&self) -> (f64, f64) {
        let (b0, b1) = self.wald_bound();
        (self.at_null.asn / b0, self.at_alternative.asn / b1)
    }
}

#[cfg(test)]
mod tests;
