//! `gate plan --compare`'s report: the paired head-against-base rule
//! ([`crate::stats::compare`]) with its exact OC as a function of θ, its distance to Wald's
//! bound, and, for pairs of pass rates, its exact risks and expected pairs with the
//! `max_pairs` truncation.

use serde::Serialize;

use super::{LatticeJson, oc_grid};
use crate::stats::calibrated;
use crate::stats::compare::{
    CompareDesign, CompareSpec, Effect, MAX_PAIRS_LIMIT, rate_at_odds_ratio,
};
use crate::stats::{StatsError, lattice::Oc};

/// What `gate plan --compare` was asked for.
#[derive(Debug, Clone)]
pub struct CompareOptions {
    /// The design.
    pub spec: CompareSpec,
    /// `--at` pairs of (base, head) pass rates; when empty, a default set (see
    /// [`default_at`]).
    pub at: Vec<(f64, f64)>,
}

/// Everything `gate plan --compare` reports; serialises to the documented JSON contract.
#[derive(Debug, Clone, Serialize)]
pub struct CompareReport {
    /// The paired design and its exact figures.
    pub compare: CompareJson,
    /// The rule on the discordant stream: after `trials` discordant pairs, PASS once head
    /// losses are at most `pass_max_failures`, FAIL once they are at least
    /// `fail_min_failures`. Every figure above is computed from exactly this table.
    pub lattice: Vec<LatticeJson>,
}

/// The `compare` object of the JSON contract.
#[derive(Debug, Clone, Serialize)]
pub struct CompareJson {
    /// The odds ratio R to detect.
    pub odds_ratio: f64,
    /// Base's rate, when the effect was given as two rates.
    pub base: Option<f64>,
    /// Head's regressed rate, when the effect was given as two rates.
    pub regressed: Option<f64>,
    /// θ under H1, R/(1+R): the share of discordant pairs head loses when regressed.
    pub theta_regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// `calibrated` or `wald`.
    pub rule: &'static str,
    /// Pairs after which an undecided run is INCONCLUSIVE.
    pub max_pairs: u64,
    /// Whether `max_pairs` is the default.
    pub max_pairs_default: bool,
    /// The lattice's truncation, in discordant pairs.
    pub max_discordant: u64,
    /// The producer's risk the lattice was designed at (part of alpha is kept for the
    /// `max_pairs` truncation).
    pub lattice_alpha: f64,
    /// The discordance floor of the alpha promise.
    pub min_discordance: f64,
    /// P(not PASS | head = base), the largest over every base rate and correlation with at
    /// least `min_discordance` of pairs discordant (an INCONCLUSIVE fails the gate).
    pub realised_alpha: f64,
    /// P(FAIL | head = base), the largest over every base rate and correlation.
    pub realised_fail_alpha: f64,
    /// An upper bound on P(PASS) for every regression of odds ratio R (θ >= θ1) that is
    /// also a fall of at least `drop` points, at every base rate and correlation:
    /// `lattice_realised_beta + loss_route_beta`.
    pub realised_beta: f64,
    /// The size of a regression in points of pass rate (the loss route's D).
    pub drop: f64,
    /// The consumer's risk the lattice was designed at (its share of beta).
    pub lattice_beta: f64,
    /// The lattice's own P(PASS | θ = θ1), for every base rate and correlation (whatever the
    /// fall in points).
    pub lattice_realised_beta: f64,
    /// The loss route: PASS after `first` pairs once head's losses are at most
    /// (pairs − first) / step (null: `max_pairs` too few for it).
    pub loss_route: Option<crate::stats::loss_route::LossRoute>,
    /// The loss route's P(PASS) when head loses `drop` of its pairs: its largest over every
    /// regression of at least `drop` points, every base rate and correlation.
    pub loss_route_beta: f64,
    /// The whole rule's exact OC at independent sides over a grid of base rates and drops
    /// (head = base − drop), with the `max_pairs` truncation.
    pub oc_by_drop: Vec<DropRow>,
    /// The smallest discordance at which P(not PASS | head = base) <= alpha with this
    /// `max_pairs` (null: none).
    pub alpha_min_discordance: Option<f64>,
    /// The equal rates of independent sides for which that holds (null: none).
    pub alpha_base_range: Option<[f64; 2]>,
    /// Fewest discordant pairs to a PASS (all head wins).
    pub earliest_pass: Option<u64>,
    /// Fewest discordant pairs to a FAIL (all head losses).
    pub earliest_fail: Option<u64>,
    /// Expected discordant pairs at θ = 1/2.
    pub discordant_null: f64,
    /// Expected discordant pairs at θ1.
    pub discordant_regressed: f64,
    /// Wald's lower bound on expected discordant pairs of any test with these risks, θ = 1/2.
    pub discordant_bound_null: f64,
    /// The same at θ1.
    pub discordant_bound_regressed: f64,
    /// `discordant_null / discordant_bound_null` (1 is the information limit).
    pub discordant_ratio_null: f64,
    /// `discordant_regressed / discordant_bound_regressed`.
    pub discordant_ratio_regressed: f64,
    /// The lattice's OC as a function of θ (as many pairs as it needs).
    pub oc: Vec<ThetaRow>,
    /// Exact figures with the `max_pairs` truncation at pairs of rates (independent sides).
    pub at: Vec<AtRow>,
    /// The one-sample plan that knew base's rate, for the price of not knowing it.
    pub one_sample: Option<OneSample>,
}

/// One θ of the OC table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct ThetaRow {
    /// P(head loses | discordant).
    pub theta: f64,
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE) at the lattice's own truncation.
    pub p_inconclusive: f64,
    /// Expected discordant pairs.
    pub expected_discordant: f64,
}

/// One point of the OC over (base rate, drop), independent sides.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct DropRow {
    /// Base's pass rate.
    pub base: f64,
    /// The fall in points: head's rate is `base - drop`.
    pub drop: f64,
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE), either reason.
    pub p_inconclusive: f64,
    /// Expected pairs.
    pub expected_pairs: f64,
}

/// The base rates of the OC over (base rate, drop).
pub const DROP_GRID_BASES: [f64; 6] = [0.5, 0.8, 0.9, 0.95, 0.99, 1.0];

/// The OC over (base rate, drop): drops 0, D/2, D and 2D from each base rate of
/// [`DROP_GRID_BASES`] (where head's rate stays at or above 0).
pub fn oc_by_drop(d: &CompareDesign) -> Vec<DropRow> {
    let mut rows = Vec::new();
    for base in DROP_GRID_BASES {
        for drop in [0.0, d.drop / 2.0, d.drop, 2.0 * d.drop] {
            let head = base - drop;
            let Ok(model) = crate::stats::pair_oc::PairModel::independent(base, head) else {
                continue;
            };
            let oc = d.oc_pairs(&model);
            rows.push(DropRow {
                base,
                drop,
                p_pass: oc.p_pass,
                p_fail: oc.p_fail,
                p_inconclusive: oc.p_inconclusive,
                expected_pairs: oc.expected_pairs,
            });
        }
    }
    rows
}

/// One `--at` pair of rates.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct AtRow {
    /// Base's pass rate.
    pub base: f64,
    /// Head's pass rate.
    pub head: f64,
    /// P(a pair is discordant) for independent sides.
    pub discordance: f64,
    /// P(head loses | discordant) (null when no pair is ever discordant).
    pub theta: Option<f64>,
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE), either reason.
    pub p_inconclusive: f64,
    /// P(INCONCLUSIVE because `max_pairs` ran out).
    pub p_out_of_pairs: f64,
    /// Expected pairs (each pair is two runs).
    pub expected_pairs: f64,
    /// With head = base: the fewest `max_pairs` that keep P(not PASS) <= alpha at these
    /// rates (null when head != base, or when not even 100 times `max_pairs` do).
    pub max_pairs_for_alpha: Option<u64>,
}

/// The one-sample plan with base's rate as the healthy rate and the rate at odds ratio R
/// from it as the regressed one, same risks, calibrated rule.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct OneSample {
    /// The healthy rate it knew: base's.
    pub healthy: f64,
    /// The regressed rate at odds ratio R from it.
    pub regressed: f64,
    /// Its expected trials when healthy.
    pub trials_healthy: f64,
    /// Its expected trials when regressed.
    pub trials_regressed: f64,
    /// Compare's expected runs (2 per pair) when head = base at that rate.
    pub runs_healthy: f64,
    /// Compare's expected runs when head is at the regressed rate.
    pub runs_regressed: f64,
}

/// The `--at` rows when none are given: the effect's own rates when it was given as rates
/// (head = base, and head regressed), else base 90% and 50%, each with head = base and
/// head at odds ratio R.
pub fn default_at(effect: Effect, odds_ratio: f64) -> Vec<(f64, f64)> {
    match effect {
        Effect::Rates { base, regressed } => vec![(base, base), (base, regressed)],
        Effect::OddsRatio(_) => [0.9, 0.5]
            .into_iter()
            .flat_map(|b| [(b, b), (b, rate_at_odds_ratio(b, odds_ratio))])
            .collect(),
    }
}

fn at_row(d: &CompareDesign, base: f64, head: f64) -> Result<AtRow, StatsError> {
    let model = crate::stats::pair_oc::PairModel::independent(base, head)?;
    let oc = d.oc_pairs(&model);
    Ok(AtRow {
        base,
        head,
        discordance: model.discordance(),
        theta: model.theta(),
        p_pass: oc.p_pass,
        p_fail: oc.p_fail,
        p_inconclusive: oc.p_inconclusive,
        p_out_of_pairs: oc.p_out_of_pairs,
        expected_pairs: oc.expected_pairs,
        max_pairs_for_alpha: (base == head)
            .then(|| {
                let cap = d.max_pairs.saturating_mul(100).min(MAX_PAIRS_LIMIT);
                d.max_pairs_for_alpha_at(model.discordance(), cap)
            })
            .flatten(),
    })
}

impl CompareReport {
    /// Design the rule and compute every figure; errors name the parameter refused.
    pub fn build(o: &CompareOptions) -> Result<Self, StatsError> {
        let d = CompareDesign::new(&o.spec)?;
        let (bound0, bound1) = d.wald_bound();
        let (ratio0, ratio1) = d.asn_ratio();
        let (earliest_pass, earliest_fail) = d.boundaries.earliest();
        let thetas = oc_grid(d.theta1(), 0.5);
        let at = d.oc_theta_many(&thetas);
        let oc = thetas
            .into_iter()
            .zip(at)
            .map(|(theta, x): (f64, Oc)| ThetaRow {
                theta,
                p_pass: x.p_pass,
                p_fail: x.p_fail,
                p_inconclusive: x.p_inconclusive,
                expected_discordant: x.asn,
            })
            .collect();
        let points = if o.at.is_empty() {
            default_at(d.effect, d.odds_ratio)
        } else {
            o.at.clone()
        };
        let at = points
            .iter()
            .map(|&(b, h)| at_row(&d, b, h))
            .collect::<Result<Vec<_>, StatsError>>()?;
        // The price of not knowing base's rate, at the first base rate shown.
        let one_sample = points.first().and_then(|&(b, _)| {
            let regressed = rate_at_odds_ratio(b, d.odds_ratio);
            let one = calibrated::design_calibrated(b, regressed, d.alpha, d.beta, None).ok()?;
            let same = at_row(&d, b, b).ok()?;
            let worse = at_row(&d, b, regressed).ok()?;
            Some(OneSample {
                healthy: b,
                regressed,
                trials_healthy: one.at_healthy.asn,
                trials_regressed: one.at_regressed.asn,
                runs_healthy: 2.0 * same.expected_pairs,
                runs_regressed: 2.0 * worse.expected_pairs,
            })
        });
        let (base, regressed) = match d.effect {
            Effect::Rates { base, regressed } => (Some(base), Some(regressed)),
            Effect::OddsRatio(_) => (None, None),
        };
        let compare = CompareJson {
            odds_ratio: d.odds_ratio,
            base,
            regressed,
            theta_regressed: d.theta1(),
            alpha: d.alpha,
            beta: d.beta,
            rule: d.rule.as_str(),
            max_pairs: d.max_pairs,
            max_pairs_default: d.max_pairs_is_default,
            max_discordant: d.boundaries.max_trials(),
            lattice_alpha: d.lattice_alpha,
            min_discordance: d.min_discordance,
            realised_alpha: d.realised_alpha(),
            realised_fail_alpha: d.realised_fail_alpha(),
            realised_beta: d.realised_beta(),
            drop: d.drop,
            lattice_beta: d.lattice_beta,
            lattice_realised_beta: d.lattice_realised_beta(),
            loss_route: d.loss_route,
            loss_route_beta: d.loss_route_beta(),
            oc_by_drop: oc_by_drop(&d),
            alpha_min_discordance: d.min_discordance_for_alpha(),
            alpha_base_range: d.base_range_for_alpha().map(|(lo, hi)| [lo, hi]),
            earliest_pass,
            earliest_fail,
            discordant_null: d.at_null.asn,
            discordant_regressed: d.at_alternative.asn,
            discordant_bound_null: bound0,
            discordant_bound_regressed: bound1,
            discordant_ratio_null: ratio0,
            discordant_ratio_regressed: ratio1,
            oc,
            at,
            one_sample,
        };
        let lattice = LatticeJson::rows(&d.boundaries);
        Ok(CompareReport { compare, lattice })
    }
}
