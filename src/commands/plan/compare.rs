//! `gate plan --compare`: design the paired head-against-base rule ([`crate::stats::compare`])
//! and show its exact OC as a function of θ, its distance to Wald's bound, and, for pairs of
//! pass rates, its exact risks and expected pairs with the `max_pairs` truncation.
//!
//! A view of [`CompareDesign`] only: the report is computed once ([`CompareReport::build`])
//! and rendered as text or as the JSON contract of docs/statistics.md.

use std::fmt::Write as _;

use anyhow::anyhow;
use serde::Serialize;

use super::{LatticeJson, flag_error, num, oc_grid, percent, rate};
use crate::cli::{Format, PlanArgs, SequentialRuleArg};
use crate::exit;
use crate::stats::calibrated;
use crate::stats::compare::{CompareDesign, CompareRule, CompareSpec, Effect, rate_at_odds_ratio};
use crate::stats::{StatsError, lattice::Oc};

/// Execute `gate plan --compare`; returns the exit code.
pub fn execute(args: &PlanArgs) -> anyhow::Result<u8> {
    let effect = match (args.odds_ratio, args.base, args.regressed) {
        (Some(r), None, None) => Effect::OddsRatio(r),
        (None, Some(base), Some(regressed)) => Effect::Rates { base, regressed },
        (None, None, Some(_)) => {
            return Err(anyhow!(
                "`--compare --regressed H` needs `--base B`: the regressed rate of head is \
                 relative to base's rate (or give `--odds-ratio R`)"
            ));
        }
        _ => {
            return Err(anyhow!(
                "`--compare` needs the regression to detect: `--odds-ratio R` (R > 1), or \
                 `--base B --regressed H` (H < B)"
            ));
        }
    };
    let at = args
        .at
        .iter()
        .map(|s| parse_at(s))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let report = CompareReport::build(&CompareOptions {
        spec: CompareSpec {
            alpha: args.alpha,
            beta: args.beta,
            max_pairs: args.max_pairs,
            rule: match args.rule {
                SequentialRuleArg::Calibrated => CompareRule::Calibrated,
                SequentialRuleArg::Wald => CompareRule::Wald,
            },
            ..CompareSpec::new(effect)
        },
        at,
    })?;
    match args.format {
        Format::Text => print!("{}", render_text(&report)),
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
    }
    Ok(exit::SUCCESS)
}

/// Parse `BASE,HEAD` (each `0.9` or `90%`, in [0, 1]).
fn parse_at(s: &str) -> anyhow::Result<(f64, f64)> {
    let bad = |why: &str| {
        anyhow!("`--at` takes two pass rates as `BASE,HEAD` (e.g. `0.9,0.8`){why}, got `{s}`")
    };
    let (b, h) = s.split_once(',').ok_or_else(|| bad(""))?;
    let parse = |x: &str| crate::units::parse_rate(x).map_err(|_| bad(""));
    let (b, h) = (parse(b)?, parse(h)?);
    if !((0.0..=1.0).contains(&b) && (0.0..=1.0).contains(&h)) {
        return Err(bad(", each between 0 and 1"));
    }
    Ok((b, h))
}

/// A statistics error in the words of `gate plan --compare`'s flags.
fn compare_error(err: StatsError) -> anyhow::Error {
    match err {
        StatsError::NoSequential { max_trials, .. } => anyhow!(
            "no sequential rule with at most {max_trials} discordant pairs meets both risks: \
             raise `--max-pairs`, detect a larger odds ratio, or allow larger risks"
        ),
        StatsError::NoPlan { .. } => anyhow!(
            "this odds ratio is too close to 1 to detect at these risks within the design \
             limit: detect a larger `--odds-ratio` (or a lower `--regressed`), or allow larger \
             risks"
        ),
        StatsError::Unreachable {
            max_trials,
            to_pass,
            to_fail,
        } => anyhow!(
            "`--max-pairs` allows at most {max_trials} discordant pairs, but Wald's rule needs \
             at least {to_pass} to PASS and {to_fail} to FAIL: raise `--max-pairs`"
        ),
        other => flag_error(other),
    }
}

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
    /// P(PASS | θ = θ1), the largest over every base rate and correlation.
    pub realised_beta: f64,
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

fn at_row(d: &CompareDesign, base: f64, head: f64) -> anyhow::Result<AtRow> {
    let model = crate::stats::compare::PairModel::independent(base, head).map_err(compare_error)?;
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
    })
}

impl CompareReport {
    /// Design the rule and compute every figure. Errors name the flag.
    pub fn build(o: &CompareOptions) -> anyhow::Result<Self> {
        let d = CompareDesign::new(&o.spec).map_err(compare_error)?;
        let (bound0, bound1) = d.wald_bound();
        let (ratio0, ratio1) = d.asn_ratio();
        let (earliest_pass, earliest_fail) = d.boundaries.earliest();
        let oc = oc_grid(d.theta1(), 0.5)
            .into_iter()
            .map(|theta| {
                let x: Oc = d.oc_theta(theta);
                ThetaRow {
                    theta,
                    p_pass: x.p_pass,
                    p_fail: x.p_fail,
                    p_inconclusive: x.p_inconclusive,
                    expected_discordant: x.asn,
                }
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
            .collect::<anyhow::Result<Vec<_>>>()?;
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
        let lattice = d
            .boundaries
            .rows()
            .iter()
            .map(|r| LatticeJson {
                trials: r.trials,
                pass_max_failures: r.pass_max_failures,
                fail_min_failures: r.fail_min_failures,
            })
            .collect();
        Ok(CompareReport { compare, lattice })
    }
}

/// "1 pair" / "2 pairs".
fn pairs(n: u64) -> String {
    format!("{n} pair{}", if n == 1 { "" } else { "s" })
}

/// The human-readable report.
pub fn render_text(r: &CompareReport) -> String {
    let c = &r.compare;
    let mut out = String::new();
    let effect = match (c.base, c.regressed) {
        (Some(b), Some(h)) => format!(
            "catch an odds ratio R = {} (base {} against\nhead {} under independent pairs): head \
             losing R discordant pairs for each one it wins.",
            num_short(c.odds_ratio),
            rate(b),
            rate(h)
        ),
        _ => format!(
            "catch an odds ratio R = {}: head losing R\ndiscordant pairs for each one it wins.",
            num_short(c.odds_ratio)
        ),
    };
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(
        out,
        "Compare head against base in pairs: {effect}\n\
         Producer's risk alpha {}, consumer's risk beta {}; no pass rate needs to be known.\n",
        num(c.alpha),
        num(c.beta)
    );
    let _ = writeln!(
        out,
        "Each pair runs the task once on head and once on base. Pairs where both sides agree\n\
         say nothing; the rule reads the discordant pairs, in pair order, and counts head's\n\
         losses. If the two rates are equal, head loses half of them (θ = 50%), whatever the\n\
         rate and however the two sides are correlated; a regression makes head lose\n\
         θ1 = R/(1+R) = {}.\n",
        rate_at(c.theta_regressed)
    );
    let rule = match c.rule {
        "wald" => "Wald's SPRT (rule: wald)",
        _ => "calibrated (rule: calibrated)",
    };
    let _ = writeln!(
        out,
        "Rule on discordant pairs: {rule}, at most {} discordant pairs\n  \
         and at most {} in all, then INCONCLUSIVE{}",
        c.max_discordant,
        pairs(c.max_pairs),
        if c.max_pairs_default {
            format!(
                "\n  (max_pairs {}, the default: the fewest that keep alpha when {} of pairs \
                 disagree)",
                c.max_pairs,
                rate(c.min_discordance)
            )
        } else {
            format!(" (max_pairs {})", c.max_pairs)
        }
    );
    let earliest = |t: Option<u64>, what: &str, how: &str| match t {
        Some(t) => format!("{what} after {t} straight {how}"),
        None => format!("no {what} within {} discordant pairs", c.max_discordant),
    };
    let _ = writeln!(
        out,
        "  earliest verdicts: {}, {}",
        earliest(c.earliest_pass, "PASS", "head wins"),
        earliest(c.earliest_fail, "FAIL", "head losses")
    );
    lattice_losses(&mut out, &r.lattice);
    let _ = writeln!(
        out,
        "  information limit (Wald's lower bound for ANY test with these risks): {:.1}\n  \
         discordant pairs when head = base, {:.1} when regressed; this rule spends {:.1} / {:.1},\n  \
         {:.2}x and {:.2}x that",
        c.discordant_bound_null,
        c.discordant_bound_regressed,
        c.discordant_null,
        c.discordant_regressed,
        c.discordant_ratio_null,
        c.discordant_ratio_regressed
    );
    out.push('\n');

    let _ = writeln!(out, "Risks (exact, for every base rate and correlation):");
    let _ = writeln!(
        out,
        "  P(PASS | regressed, θ1)     {:>7}  realised beta, the requested {}",
        percent(c.realised_beta),
        percent(c.beta)
    );
    let _ = writeln!(
        out,
        "  P(FAIL | head = base)       {:>7}  at most, within alpha {}",
        percent(c.realised_fail_alpha),
        percent(c.alpha)
    );
    let _ = writeln!(
        out,
        "  P(not PASS | head = base)   {:>7}  realised alpha (an INCONCLUSIVE fails the gate),\n  \
         {:<27} {:>7}  the largest when at least {} of pairs are discordant",
        percent(c.realised_alpha),
        "",
        "",
        rate(c.min_discordance)
    );
    match (c.alpha_min_discordance, c.alpha_base_range) {
        (Some(dmin), Some([lo, hi])) => {
            let _ = writeln!(
                out,
                "  alpha holds down to {} discordant pairs: for independent sides with equal\n  \
                 rates between {} and {}; closer to 0% or 100% the pairs run out first\n  \
                 (INCONCLUSIVE), and no finite max_pairs avoids that",
                rate_at(dmin),
                rate_at(lo),
                rate_at(hi)
            );
        }
        (Some(dmin), None) => {
            let _ = writeln!(
                out,
                "  alpha holds only when at least {} of pairs are discordant, which no\n  \
                 independent sides with equal rates reach: raise `--max-pairs`",
                rate_at(dmin)
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "  warning: the rule's own P(not PASS | head = base) is above alpha whatever \
                 the pairs;\n  the calibrated rule (the default) keeps it"
            );
        }
    }
    if c.realised_alpha > c.alpha {
        let _ = writeln!(
            out,
            "  warning: with max_pairs {} a run where {} of pairs disagree ends INCONCLUSIVE \
             too often:\n  alpha {} is above the requested {}; raise `--max-pairs`",
            c.max_pairs,
            rate(c.min_discordance),
            percent(c.realised_alpha),
            percent(c.alpha)
        );
    }
    if c.realised_beta > c.beta {
        let _ = writeln!(
            out,
            "  warning: the realised beta {} is above the requested {}; the calibrated rule \
             (the default) keeps it",
            percent(c.realised_beta),
            percent(c.beta)
        );
    }
    out.push('\n');

    let _ = writeln!(
        out,
        "Operating characteristic by θ = P(head loses | discordant), exact, as many pairs as it needs"
    );
    let _ = writeln!(
        out,
        "  {:>9} {:>8} {:>8} {:>15} {:>19}",
        "θ", "P(PASS)", "P(FAIL)", "P(INCONCLUSIVE)", "discordant pairs"
    );
    for row in &c.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>8} {:>8} {:>15} {:>19.1}",
            rate_at(row.theta),
            percent(row.p_pass),
            percent(row.p_fail),
            percent(row.p_inconclusive),
            row.expected_discordant
        );
    }
    let _ = writeln!(
        out,
        "  (θ below 50%: head better than base; θ1 = {} is the regression to catch)\n",
        rate_at(c.theta_regressed)
    );

    let _ = writeln!(
        out,
        "At these pass rates (independent sides, with max_pairs {}), exact:",
        c.max_pairs
    );
    let _ = writeln!(
        out,
        "  {:>6} {:>6} {:>11} {:>8} {:>8} {:>15} {:>13} {:>14}",
        "base",
        "head",
        "discordant",
        "P(PASS)",
        "P(FAIL)",
        "P(INCONCLUSIVE)",
        "out of pairs",
        "expected pairs"
    );
    for a in &c.at {
        let _ = writeln!(
            out,
            "  {:>6} {:>6} {:>11} {:>8} {:>8} {:>15} {:>13} {:>14.1}",
            rate(a.base),
            rate(a.head),
            rate_at(a.discordance),
            percent(a.p_pass),
            percent(a.p_fail),
            percent(a.p_inconclusive),
            percent(a.p_out_of_pairs),
            a.expected_pairs
        );
    }
    let _ = writeln!(out, "  (each pair is two runs: one on head, one on base)\n");
    if let Some(s) = &c.one_sample {
        let _ = writeln!(
            out,
            "Price of not knowing base's rate: a one-sample plan told healthy {} and regressed\n  \
             {} expects {:.1} / {:.1} trials; compare expects {:.1} / {:.1} runs, {:.1}x / {:.1}x that.\n",
            rate(s.healthy),
            rate_at(s.regressed),
            s.trials_healthy,
            s.trials_regressed,
            s.runs_healthy,
            s.runs_regressed,
            s.runs_healthy / s.trials_healthy,
            s.runs_regressed / s.trials_regressed
        );
    }
    let _ = writeln!(out, "Plan file snippet (sampling rule):");
    let effect = match (c.base, c.regressed) {
        (Some(b), Some(h)) => format!("base: {}, regressed: {}", num(b), num(h)),
        _ => format!("odds_ratio: {}", num(c.odds_ratio)),
    };
    let _ = writeln!(
        out,
        "compare: {{{effect}, alpha: {}, beta: {}, max_pairs: {}{}}}",
        num(c.alpha),
        num(c.beta),
        c.max_pairs,
        if c.rule == "wald" { ", rule: wald" } else { "" }
    );
    out
}

/// The lattice as head losses, at most a dozen rows (the full lattice is in the JSON).
fn lattice_losses(out: &mut String, lattice: &[LatticeJson]) {
    let Some(last) = lattice.last() else {
        return;
    };
    let raw = last.trials.div_ceil(12).max(1);
    let step = [
        1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000, 10_000,
    ]
    .into_iter()
    .find(|&s| s >= raw)
    .unwrap_or(raw);
    let cell = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    let _ = writeln!(out, "  after t discordant pairs:");
    let _ = writeln!(
        out,
        "  {:>16} {:>24} {:>24}",
        "discordant t", "PASS if head losses <=", "FAIL if head losses >="
    );
    for row in lattice
        .iter()
        .filter(|r| r.trials % step == 0 || r.trials == last.trials)
    {
        let _ = writeln!(
            out,
            "  {:>16} {:>24} {:>24}",
            row.trials,
            cell(row.pass_max_failures),
            cell(row.fail_min_failures)
        );
    }
}

/// A computed rate, to one decimal of a percent.
fn rate_at(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// An odds ratio to at most three decimals (2.25, 3, 1.778).
fn num_short(x: f64) -> String {
    let s = format!("{x:.3}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
