//! The indifference zone of a rule: the true rates between the regressed and the healthy one,
//! where the plan promises nothing and the verdict can go either way, and the rate inside it
//! at which the rule passes exactly half the time.
//!
//! A newcomer who sees a test at 80% pass once and fail the next time under a 90%-vs-70% plan
//! sees a coin-flip gate; the OC says it is one, by design, at that rate. This module finds
//! that rate from the rule's exact OC (it is not the midpoint of the two rates: the OC of a
//! rule is not symmetric), so every renderer can say so in one line.
//!
//! P(PASS | p) of a lattice rule is non-decreasing in p (a success never moves the walk
//! towards FAIL, so coupling the trials of two rates shows the higher one passes whenever the
//! lower one does), which makes bisection exact to double precision.

use super::lattice::Boundaries;

/// Halvings of [0, 1]: 2^-60 is below the spacing of doubles near any rate we print.
const HALVINGS: u32 = 60;

/// Halvings decided per batch of [`rate_where_p_pass_is_batched`]: the 2^k - 1 rates any
/// of the next k halvings can ask for, 3 rates for k = 2, one pass of a lattice's
/// [`Boundaries::oc_many`] (which walks up to 4 rates at about the cost of one).
const HALVINGS_PER_BATCH: u32 = 2;

/// The success rate at which `p_pass` (a non-decreasing OC) equals `target`, by bisection, or
/// `None` when the OC never crosses `target` on [0, 1] (a rule that cannot PASS, or passes
/// even when every trial fails).
///
/// Once the bracket is two adjacent doubles the midpoint rounds to one of them, and every
/// further halving leaves the answer at that midpoint (if `mid == lo`, either `lo` stays or
/// `hi` becomes `lo`, and from then on every midpoint is `lo` again; likewise for `hi`), so
/// the search ends there without evaluating it.
pub fn rate_where_p_pass_is(p_pass: impl Fn(f64) -> f64, target: f64) -> Option<f64> {
    rate_where_p_pass_is_batched(|ps| ps.iter().map(|&p| p_pass(p)).collect(), target, 1)
}

/// [`rate_where_p_pass_is`] with `p_pass_many` giving P(PASS) at several rates at once (for
/// [`Boundaries::oc_many`]), bit for bit the same answer. Each call asks for every rate the
/// next `per_batch` halvings could need, whichever way their comparisons go (2^per_batch - 1
/// rates), and the halvings then follow exactly the plain bisection's decisions; no
/// monotonicity is assumed. `per_batch` 1 is the plain bisection.
pub fn rate_where_p_pass_is_batched(
    p_pass_many: impl Fn(&[f64]) -> Vec<f64>,
    target: f64,
    per_batch: u32,
) -> Option<f64> {
    let ends = p_pass_many(&[0.0, 1.0]);
    if !(ends[0] < target && ends[1] > target) {
        return None;
    }
    // Rates evaluated so far with their P(PASS) (a pure function of the rate).
    let mut known: Vec<(f64, f64)> = Vec::new();
    let (mut lo, mut hi) = (0.0_f64, 1.0_f64);
    for done in 0..HALVINGS {
        let mid = 0.5 * (lo + hi);
        if mid == lo || mid == hi {
            return Some(mid);
        }
        let value = match known.iter().find(|k| k.0.to_bits() == mid.to_bits()) {
            Some(&(_, v)) => v,
            None => {
                let levels = per_batch.clamp(1, HALVINGS - done);
                let mut rates = Vec::new();
                speculate(lo, hi, levels, &mut rates);
                let values = p_pass_many(&rates);
                known.extend(rates.into_iter().zip(values));
                known
                    .iter()
                    .find(|k| k.0.to_bits() == mid.to_bits())
                    .expect("a batch starts at the midpoint")
                    .1
            }
        };
        if value < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The midpoints the next `levels` halvings of [lo, hi] can evaluate, either way each goes
/// (none past a bracket of adjacent doubles, where the search ends).
fn speculate(lo: f64, hi: f64, levels: u32, out: &mut Vec<f64>) {
    let mid = 0.5 * (lo + hi);
    if levels == 0 || mid == lo || mid == hi {
        return;
    }
    out.push(mid);
    speculate(mid, hi, levels - 1, out);
    speculate(lo, mid, levels - 1, out);
}

/// The rate at which the rule passes half the time: P(PASS | p) = 0.5.
pub fn half_pass_rate(rule: &Boundaries) -> Option<f64> {
    p_pass_where(rule, 0.5)
}

/// The rate where `rule` passes with probability `target`. A walked lattice evaluates the
/// candidates of two halvings in one [`Boundaries::oc_many`]; a single plan's closed form
/// costs the same per rate either way, so it bisects one rate at a time.
fn p_pass_where(rule: &Boundaries, target: f64) -> Option<f64> {
    let per_batch = if rule.has_closed_form() {
        1
    } else {
        HALVINGS_PER_BATCH
    };
    rate_where_p_pass_is_batched(
        |ps| rule.oc_many(ps).iter().map(|oc| oc.p_pass).collect(),
        target,
        per_batch,
    )
}

/// The zone between two rates and the rate inside it where the rule passes half the time.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct Zone {
    /// The lower edge: the regressed rate (or, with no rates given, where P(PASS) = 10%).
    pub lo: f64,
    /// The upper edge: the healthy rate (or, with no rates given, where P(PASS) = 95%).
    pub hi: f64,
    /// The rate at which P(PASS) = 0.5, found from the exact OC.
    pub half: f64,
}

impl Zone {
    /// The zone of `rule` between `lo` and `hi`, or `None` when its OC never reaches 0.5.
    pub fn of(rule: &Boundaries, lo: f64, hi: f64) -> Option<Zone> {
        Some(Zone {
            lo,
            hi,
            half: half_pass_rate(rule)?,
        })
    }

    /// The zone of a rule that states no rates: between where it passes 10% and 95% of the
    /// time (the rates `gate check` shows such a rule tells apart).
    pub fn unstated(rule: &Boundaries) -> Option<Zone> {
        Some(Zone {
            lo: p_pass_where(rule, 0.10)?,
            hi: p_pass_where(rule, 0.95)?,
            half: half_pass_rate(rule)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::binomial::ln_choose;
    use crate::stats::calibrated::design_calibrated;

    /// P(at most c failures in n trials at success rate p), summed term by term: an
    /// independent recomputation of the single plan's OC (p strictly inside (0, 1)).
    fn single_p_pass(n: u64, c: u64, p: f64) -> f64 {
        (0..=c.min(n))
            .map(|k| (ln_choose(n, k) + k as f64 * (1.0 - p).ln() + (n - k) as f64 * p.ln()).exp())
            .sum()
    }

    #[test]
    fn the_default_single_plan_passes_half_the_time_just_below_the_midpoint() {
        let rule = Boundaries::single(33, 6).unwrap();
        let half = half_pass_rate(&rule).unwrap();
        // Recomputed term by term, independent of the OC code gate decides with.
        assert!((single_p_pass(33, 6, half) - 0.5).abs() < 1e-12);
        // At the midpoint 80% the plan already passes a little more than half the time
        // (P(F <= 6), F ~ Bin(33, 0.2), is 0.5004), so the half rate sits just below it.
        assert!(single_p_pass(33, 6, 0.80) > 0.5);
        assert!(half > 0.799 && half < 0.80, "{half}");
    }

    #[test]
    fn a_rule_that_never_crosses_one_half_has_no_half_rate() {
        assert_eq!(rate_where_p_pass_is(|_| 0.2, 0.5), None);
        assert_eq!(rate_where_p_pass_is(|_| 0.7, 0.5), None);
    }

    #[test]
    fn the_calibrated_rule_passes_half_the_time_inside_its_rates() {
        let d = design_calibrated(0.9, 0.7, 0.05, 0.10, None).unwrap();
        let z = Zone::of(&d.boundaries, 0.7, 0.9).unwrap();
        assert!((d.boundaries.oc(z.half).p_pass - 0.5).abs() < 1e-9);
        assert!(z.lo < z.half && z.half < z.hi);
    }

    proptest::proptest! {
        // Each case bisects three OCs of up to 200 trials: 64 cases keep it quick in debug.
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]
        #[test]
        fn the_half_rate_of_any_single_plan_recomputes_from_the_binomial(
            n in 1u64..200,
            c_frac in 0.0f64..1.0,
        ) {
            let c = ((n as f64) * c_frac) as u64 % n;
            let rule = Boundaries::single(n, c).unwrap();
            let half = half_pass_rate(&rule).unwrap();
            proptest::prop_assert!((single_p_pass(n, c, half) - 0.5).abs() < 1e-9);
            // Monotone OC: below the half rate it passes less than half the time.
            let below = (half - 1e-3).max(0.0);
            proptest::prop_assert!(single_p_pass(n, c, below) <= 0.5 + 1e-12);
            let z = Zone::unstated(&rule).unwrap();
            proptest::prop_assert!(z.lo <= z.half && z.half <= z.hi);
        }
    }
}
