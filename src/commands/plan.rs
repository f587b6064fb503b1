//! `gate plan`: design the single and the sequential plan that tell a healthy per-trial
//! success rate from a regressed one, and show both plans' exact risks and costs.
//!
//! Everything here is a view of [`crate::stats`]: the report is computed once
//! ([`PlanReport::build`]) and rendered as text (with a terminal OC curve and a plan-file
//! snippet), as the JSON contract documented in the README, or as an SVG chart.

use std::fmt::Write as _;

use anyhow::{Context, anyhow};
use serde::Serialize;

use crate::cli::{Format, PlanArgs};
use crate::exit;
use crate::stats::sprt::{MAX_TRIALS_LIMIT, Sprt, default_max_trials};
use crate::stats::{StatsError, design, oc};

/// Execute `gate plan`; returns the exit code.
pub fn execute(args: &PlanArgs) -> anyhow::Result<u8> {
    let report = PlanReport::build(
        args.healthy,
        args.regressed,
        args.alpha,
        args.beta,
        args.max_trials,
    )?;
    if let Some(path) = &args.svg {
        let svg = render_svg(&report)?;
        std::fs::write(path, svg)
            .with_context(|| format!("cannot write the SVG chart to `{}`", path.display()))?;
    }
    match args.format {
        Format::Text => {
            print!("{}", render_text(&report));
            if let Some(path) = &args.svg {
                println!("\nOC and ASN chart written to {}", path.display());
            }
        }
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
    }
    Ok(exit::SUCCESS)
}

/// A statistics error as a command-line error: the parameter becomes its flag.
pub(crate) fn flag_error(err: StatsError) -> anyhow::Error {
    match err {
        StatsError::OutOfRange { name, range, value } => {
            anyhow!(
                "`--{}` must be {range}, got `{}`",
                name.replace('_', "-"),
                num(value)
            )
        }
        StatsError::NotSeparated { healthy, regressed } => {
            anyhow!(
                "`--healthy` ({}) must be greater than `--regressed` ({})",
                num(healthy),
                num(regressed)
            )
        }
        StatsError::Unreachable {
            max_trials,
            to_pass,
            to_fail,
        } => anyhow!(
            "`--max-trials {max_trials}` is too small: the sequential test needs at least \
             {to_pass} trials to PASS and {to_fail} to FAIL"
        ),
        StatsError::BadLattice { .. } => anyhow!("{err}"),
        StatsError::NoSequential { max_trials, .. } => anyhow!(
            "no sequential rule with at most {max_trials} trials meets both risks: raise \
             `--max-trials`, widen the gap between the rates, or allow larger risks"
        ),
        StatsError::NoPlan { limit, alpha, beta } => anyhow!(
            "no single plan with at most {limit} trials tells these rates apart at alpha \
             `{}` and beta `{}`: widen the gap between `--healthy` and `--regressed`, \
             or allow larger risks",
            num(alpha),
            num(beta)
        ),
    }
}

/// Everything `gate plan` reports; serialises to the documented JSON contract.
#[derive(Debug, Clone, Serialize)]
pub struct PlanReport {
    /// Healthy per-trial success rate p0.
    pub healthy: f64,
    /// Regressed per-trial success rate p1.
    pub regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// The smallest single plan meeting both risks.
    pub single: SingleReport,
    /// The truncated SPRT for the same rates and risks.
    pub sequential: SequentialReport,
    /// Both plans over a grid of true rates (see [`oc_grid`]).
    pub oc: Vec<OcRow>,
    /// The sequential rule as failure counts: after `trials` graded trials, PASS once
    /// failures are at most `pass_max_failures`, FAIL once they are at least
    /// `fail_min_failures` (`null`: that verdict is not reachable yet).
    pub lattice: Vec<LatticeJson>,
    #[serde(skip)]
    sprt: Sprt,
}

/// One row of the sequential rule's decision lattice, in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct LatticeJson {
    /// Graded trials so far.
    pub trials: u64,
    /// PASS once failures are at most this.
    pub pass_max_failures: Option<u64>,
    /// FAIL once failures are at least this.
    pub fail_min_failures: Option<u64>,
}

/// The single plan in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SingleReport {
    /// Trials.
    pub n: u64,
    /// Acceptance number: failures tolerated.
    pub c: u64,
    /// n - c.
    pub min_successes: u64,
    /// P(PASS | healthy) >= 1 - alpha.
    pub p_pass_healthy: f64,
    /// P(PASS | regressed) <= beta.
    pub p_pass_regressed: f64,
    /// Expected trials of the curtailed plan when healthy.
    pub curtailed_asn_healthy: f64,
    /// Expected trials of the curtailed plan when regressed.
    pub curtailed_asn_regressed: f64,
}

/// The sequential plan in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SequentialReport {
    /// Truncation: INCONCLUSIVE after this many graded trials.
    pub max_trials: u64,
    /// PASS once the LLR is at or below this.
    pub accept_llr: f64,
    /// FAIL once the LLR is at or above this.
    pub reject_llr: f64,
    /// LLR change of one success (negative).
    pub llr_per_success: f64,
    /// LLR change of one failure (positive).
    pub llr_per_failure: f64,
    /// Fewest trials to a PASS (all successes); None if no PASS within max_trials.
    pub earliest_pass: Option<u64>,
    /// Fewest trials to a FAIL (all failures); None if no FAIL within max_trials.
    pub earliest_fail: Option<u64>,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(FAIL | healthy): the realised producer's risk.
    pub p_fail_healthy: f64,
    /// P(INCONCLUSIVE | healthy).
    pub p_inconclusive_healthy: f64,
    /// P(PASS | regressed): the realised consumer's risk.
    pub p_pass_regressed: f64,
    /// P(FAIL | regressed).
    pub p_fail_regressed: f64,
    /// P(INCONCLUSIVE | regressed).
    pub p_inconclusive_regressed: f64,
    /// Expected trials when healthy.
    pub asn_healthy: f64,
    /// Expected trials when regressed.
    pub asn_regressed: f64,
    /// The largest expected trials over rates between regressed and healthy.
    pub asn_max: f64,
    /// The rate at which `asn_max` occurs.
    pub asn_max_p: f64,
}

/// One row of the OC table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct OcRow {
    /// True per-trial success rate.
    pub p: f64,
    /// Single plan P(PASS).
    pub single_p_pass: f64,
    /// Single plan expected trials, curtailed.
    pub single_curtailed_asn: f64,
    /// Sequential P(PASS).
    pub sequential_p_pass: f64,
    /// Sequential P(FAIL).
    pub sequential_p_fail: f64,
    /// Sequential P(INCONCLUSIVE).
    pub sequential_p_inconclusive: f64,
    /// Sequential expected trials.
    pub sequential_asn: f64,
}

impl PlanReport {
    /// Validate the flags and compute both plans. Errors name the flag and its range.
    pub fn build(
        healthy: f64,
        regressed: f64,
        alpha: f64,
        beta: f64,
        max_trials: Option<u64>,
    ) -> anyhow::Result<Self> {
        let single = design::design_single(healthy, regressed, alpha, beta).map_err(flag_error)?;
        let max_trials = match max_trials {
            Some(m) if (1..=MAX_TRIALS_LIMIT).contains(&m) => m,
            Some(m) => {
                return Err(anyhow!(
                    "`--max-trials` must be between 1 and {MAX_TRIALS_LIMIT}, got `{m}`"
                ));
            }
            None => default_max_trials(healthy, regressed, alpha, beta).map_err(flag_error)?,
        };
        let sprt = Sprt::new(healthy, regressed, alpha, beta, max_trials).map_err(flag_error)?;
        // A truncation no verdict can be reached within is not a plan, however cheap it looks.
        sprt.check_reachable().map_err(flag_error)?;
        let at_healthy = sprt.oc(healthy);
        let at_regressed = sprt.oc(regressed);
        let worst = sprt.worst_asn();
        // Plan validation refused a truncation that cannot reach both verdicts, so both
        // are within max_trials; the filter only keeps the contract's `null` honest.
        let (to_pass, to_fail) = sprt.min_trials_to_decide();
        let within = |t: u64| (t <= max_trials).then_some(t);
        let sequential = SequentialReport {
            max_trials,
            accept_llr: sprt.accept_llr(),
            reject_llr: sprt.reject_llr(),
            llr_per_success: sprt.llr(1, 0),
            llr_per_failure: sprt.llr(0, 1),
            earliest_pass: within(to_pass),
            earliest_fail: within(to_fail),
            p_pass_healthy: at_healthy.p_pass,
            p_fail_healthy: at_healthy.p_fail,
            p_inconclusive_healthy: at_healthy.p_inconclusive,
            p_pass_regressed: at_regressed.p_pass,
            p_fail_regressed: at_regressed.p_fail,
            p_inconclusive_regressed: at_regressed.p_inconclusive,
            asn_healthy: at_healthy.asn,
            asn_regressed: at_regressed.asn,
            asn_max: worst.asn,
            asn_max_p: worst.p,
        };
        let single = SingleReport {
            n: single.n,
            c: single.c,
            min_successes: single.min_successes(),
            p_pass_healthy: single.p_pass_healthy,
            p_pass_regressed: single.p_pass_regressed,
            curtailed_asn_healthy: oc::curtailed_asn(single.n, single.c, healthy),
            curtailed_asn_regressed: oc::curtailed_asn(single.n, single.c, regressed),
        };
        let oc = oc_grid(healthy, regressed)
            .into_iter()
            .map(|p| {
                let seq = sprt.oc(p);
                OcRow {
                    p,
                    single_p_pass: oc::single_p_pass(single.n, single.c, p),
                    single_curtailed_asn: oc::curtailed_asn(single.n, single.c, p),
                    sequential_p_pass: seq.p_pass,
                    sequential_p_fail: seq.p_fail,
                    sequential_p_inconclusive: seq.p_inconclusive,
                    sequential_asn: seq.asn,
                }
            })
            .collect();
        let lattice = sprt
            .lattice()
            .into_iter()
            .map(|r| LatticeJson {
                trials: r.trials,
                pass_max_failures: r.pass_max_failures,
                fail_min_failures: r.fail_min_failures,
            })
            .collect();
        Ok(PlanReport {
            healthy,
            regressed,
            alpha,
            beta,
            single,
            sequential,
            oc,
            lattice,
            sprt,
        })
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

/// A probability as a percentage with one decimal, or more when one decimal would show a
/// probability that is neither 0 nor 1 as "0.0%" or "100.0%" (a 99.99% gate is not certain).
pub(crate) fn percent(x: f64) -> String {
    if x.is_nan() {
        return "n/a".to_string();
    }
    if x <= 0.0 {
        return "0.0%".to_string();
    }
    if x >= 1.0 {
        return "100.0%".to_string();
    }
    for decimals in 1..=4 {
        let s = format!("{:.*}", decimals, x * 100.0);
        let shown: f64 = s.parse().unwrap_or(f64::NAN);
        if shown > 0.0 && shown < 100.0 {
            return format!("{s}%");
        }
    }
    if x < 0.5 {
        "<0.0001%".to_string()
    } else {
        ">99.9999%".to_string()
    }
}

/// A rate the user gave, as a percentage without trailing zeros: 0.9 → "90%", 0.995 → "99.5%".
pub(crate) fn rate(p: f64) -> String {
    let s = format!("{:.6}", p * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "0" && p != 0.0 {
        return format!("{}%", num(p * 100.0));
    }
    format!("{s}%")
}

/// A number as the user would type it: plain decimals in the usual range, exponent notation
/// for the very small or large (Rust's `{}` would print 1e-300 with 300 zeros). Both forms
/// read back as YAML floats.
pub(crate) fn num(x: f64) -> String {
    if x == 0.0 || !x.is_finite() || (1e-4..1e15).contains(&x.abs()) {
        format!("{x}")
    } else {
        format!("{x:e}")
    }
}

/// "1 trial" / "2 trials".
fn trials(n: u64) -> String {
    format!("{n} trial{}", if n == 1 { "" } else { "s" })
}

/// The human-readable report.
/// The decision lattice a person can apply by hand: after t graded trials, PASS once
/// failures <= r_t, FAIL once failures >= a_t. At most a dozen rows, evenly spaced in t (the
/// full lattice is in the JSON).
fn lattice_text(out: &mut String, lattice: &[LatticeJson]) {
    let Some(last) = lattice.last() else {
        return;
    };
    // A round step giving at most 12 rows, always ending at max_trials.
    let raw = last.trials.div_ceil(12).max(1);
    let step = [
        1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 2500, 5000, 10_000, 20_000,
        25_000, 50_000, 100_000,
    ]
    .into_iter()
    .find(|&s| s >= raw)
    .unwrap_or(raw);
    let cell = |v: Option<u64>| v.map_or_else(|| "-".to_string(), |v| v.to_string());
    let _ = writeln!(out, "  as failure counts, after t graded trials:");
    let _ = writeln!(
        out,
        "  {:>10} {:>22} {:>22}",
        "trials t", "PASS if failures <=", "FAIL if failures >="
    );
    for row in lattice
        .iter()
        .filter(|r| r.trials % step == 0 || r.trials == last.trials)
    {
        let _ = writeln!(
            out,
            "  {:>10} {:>22} {:>22}",
            row.trials,
            cell(row.pass_max_failures),
            cell(row.fail_min_failures)
        );
    }
}

pub fn render_text(r: &PlanReport) -> String {
    let mut out = String::new();
    let (h, g) = (rate(r.healthy), rate(r.regressed));
    let s = &r.single;
    let q = &r.sequential;
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(
        out,
        "Plans that tell a healthy agent ({h} per trial) from a regressed one ({g}),\n\
         with producer's risk alpha {} and consumer's risk beta {}.\n",
        num(r.alpha),
        num(r.beta)
    );

    let _ = writeln!(
        out,
        "Single plan: run {}, pass if at most {} fail, i.e. at least {} succeed",
        s.n, s.c, s.min_successes
    );
    let rows = [
        (
            format!("P(PASS | healthy {h})"),
            s.p_pass_healthy,
            format!(
                "fails a healthy agent {} of the time; alpha {}",
                percent(1.0 - s.p_pass_healthy),
                percent(r.alpha)
            ),
        ),
        (
            format!("P(PASS | regressed {g})"),
            s.p_pass_regressed,
            format!(
                "misses the regression {} of the time; beta {}",
                percent(s.p_pass_regressed),
                percent(r.beta)
            ),
        ),
    ];
    let width = rows.iter().map(|x| x.0.len()).max().unwrap_or(0);
    for (label, value, note) in &rows {
        let _ = writeln!(out, "  {label:<width$}  {:>7}  ({note})", percent(*value));
    }
    let _ = writeln!(
        out,
        "  curtailed (stop at the {} failure or the {} success): expected trials\n  \
         {:.1} when healthy, {:.1} when regressed\n",
        ordinal(s.c + 1),
        ordinal(s.min_successes),
        s.curtailed_asn_healthy,
        s.curtailed_asn_regressed
    );

    let _ = writeln!(
        out,
        "Sequential plan: SPRT, at most {}\n  \
         the LLR moves {:+.3} per failure and {:+.3} per success;\n  \
         FAIL once LLR >= {:.3}, PASS once LLR <= {:.3}",
        trials(q.max_trials),
        q.llr_per_failure,
        q.llr_per_success,
        q.reject_llr,
        q.accept_llr
    );
    let earliest = |t: Option<u64>, what: &str| match t {
        Some(t) => format!(
            "{what} after {t} straight {}",
            if what == "PASS" {
                "successes"
            } else {
                "failures"
            }
        ),
        None => format!("no {what} within {}", trials(q.max_trials)),
    };
    let _ = writeln!(
        out,
        "  earliest verdicts: {}, {}",
        earliest(q.earliest_pass, "PASS"),
        earliest(q.earliest_fail, "FAIL")
    );
    lattice_text(&mut out, &r.lattice);
    let _ = writeln!(
        out,
        "  {:<22} {:>8} {:>8} {:>15} {:>16}",
        "true rate", "P(PASS)", "P(FAIL)", "P(INCONCLUSIVE)", "expected trials"
    );
    for (label, pass, fail, inc, asn) in [
        (
            format!("healthy {h}"),
            q.p_pass_healthy,
            q.p_fail_healthy,
            q.p_inconclusive_healthy,
            q.asn_healthy,
        ),
        (
            format!("regressed {g}"),
            q.p_pass_regressed,
            q.p_fail_regressed,
            q.p_inconclusive_regressed,
            q.asn_regressed,
        ),
    ] {
        let _ = writeln!(
            out,
            "  {label:<22} {:>8} {:>8} {:>15} {:>16.1}",
            percent(pass),
            percent(fail),
            percent(inc),
            asn
        );
    }
    let _ = writeln!(
        out,
        "  {:<22} {:>8} {:>8} {:>15} {:>16.1}",
        format!("worst case {}", rate_at(q.asn_max_p)),
        "",
        "",
        "",
        q.asn_max
    );
    let _ = writeln!(
        out,
        "  realised alpha {} (P(FAIL | healthy)), realised beta {} (P(PASS | regressed))",
        percent(q.p_fail_healthy),
        percent(q.p_pass_regressed)
    );
    let _ = writeln!(
        out,
        "  against the single plan's {}: {} when healthy, {} when regressed\n",
        trials(s.n),
        saving(q.asn_healthy, s.n),
        saving(q.asn_regressed, s.n)
    );

    let _ = writeln!(out, "Operating characteristic (exact)");
    let _ = writeln!(
        out,
        "  {:>9} {:>15} {:>13} {:>18} {:>15} {:>13}",
        "true rate",
        "single P(PASS)",
        "single trials",
        "sequential P(PASS)",
        "P(INCONCLUSIVE)",
        "seq. trials"
    );
    for row in &r.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>15} {:>13.1} {:>18} {:>15} {:>13.1}",
            rate(row.p),
            percent(row.single_p_pass),
            row.single_curtailed_asn,
            percent(row.sequential_p_pass),
            percent(row.sequential_p_inconclusive),
            row.sequential_asn
        );
    }
    let _ = writeln!(
        out,
        "  (trials: expected graded trials; the single plan's are with curtailment)\n"
    );

    out.push_str(&terminal_curve(r));
    out.push('\n');

    let _ = writeln!(out, "Plan file snippet (sampling rule):");
    let _ = writeln!(
        out,
        "version: 1\nsampling:\n  single: {{n: {}, c: {}}}\n  \
         # or the sequential test (expected {:.1} trials when healthy, {:.1} when regressed):\n  \
         # sequential: {{healthy: {}, regressed: {}, alpha: {}, beta: {}, max_trials: {}}}",
        s.n,
        s.c,
        q.asn_healthy,
        q.asn_regressed,
        num(r.healthy),
        num(r.regressed),
        num(r.alpha),
        num(r.beta),
        q.max_trials
    );
    out
}

/// A computed rate (not one the user typed), to one decimal of a percent.
fn rate_at(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// "1st", "2nd", "3rd", "4th", "11th", "21st", …
fn ordinal(n: u64) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The sequential ASN against the single plan's n, in words.
fn saving(asn: f64, n: u64) -> String {
    let ratio = asn / n as f64;
    if ratio <= 1.0 {
        format!("saves {:.0}%", (1.0 - ratio) * 100.0)
    } else {
        format!("costs {:.0}% more", (ratio - 1.0) * 100.0)
    }
}

/// Columns of the terminal OC curve.
const CURVE_WIDTH: usize = 61;
/// Rows above the 0% row: one per 10% of P(PASS).
const CURVE_STEPS: usize = 10;

/// The x-range of the curves: the OC grid's ends.
fn curve_range(r: &PlanReport) -> (f64, f64) {
    let lo = r.oc.first().map_or(0.0, |x| x.p);
    let hi = r.oc.last().map_or(1.0, |x| x.p);
    (lo, hi)
}

/// The column of rate `p` in the terminal curve.
fn column(p: f64, lo: f64, hi: f64) -> usize {
    let x = ((p - lo) / (hi - lo) * (CURVE_WIDTH - 1) as f64).round();
    (x.max(0.0) as usize).min(CURVE_WIDTH - 1)
}

/// Both OC curves as a character plot: `*` single, `o` sequential, `#` where they share a
/// cell; `R` and `H` under the axis mark the regressed and healthy rates.
fn terminal_curve(r: &PlanReport) -> String {
    let (lo, hi) = curve_range(r);
    let row_of = |x: f64| {
        ((x * CURVE_STEPS as f64)
            .round()
            .clamp(0.0, CURVE_STEPS as f64)) as usize
    };
    // (row of the single plan, row of the sequential plan) for each column.
    let rows: Vec<(usize, usize)> = (0..CURVE_WIDTH)
        .map(|col| {
            let p = lo + (hi - lo) * col as f64 / (CURVE_WIDTH - 1) as f64;
            (
                row_of(oc::single_p_pass(r.single.n, r.single.c, p)),
                row_of(r.sprt.oc(p).p_pass),
            )
        })
        .collect();
    let grid: Vec<Vec<char>> = (0..=CURVE_STEPS)
        .map(|level| {
            rows.iter()
                .map(
                    |&(single, sequential)| match (single == level, sequential == level) {
                        (true, true) => '#',
                        (true, false) => '*',
                        (false, true) => 'o',
                        (false, false) => ' ',
                    },
                )
                .collect()
        })
        .collect();
    let mut out = String::from("OC curve: P(PASS) by true success rate\n");
    for (i, row) in grid.iter().enumerate().rev() {
        let label = match i {
            10 => "100% |",
            5 => " 50% |",
            0 => "  0% |",
            _ => "     |",
        };
        let line: String = row.iter().collect();
        let _ = writeln!(out, "{label}{}", line.trim_end());
    }
    let _ = writeln!(out, "     +{}", "-".repeat(CURVE_WIDTH));
    let mut marks = vec![' '; CURVE_WIDTH];
    marks[column(r.regressed, lo, hi)] = 'R';
    marks[column(r.healthy, lo, hi)] = 'H';
    let marks: String = marks.iter().collect();
    let _ = writeln!(out, "      {}", marks.trim_end());
    let (left, right) = (rate(lo), rate(hi));
    let gap = (CURVE_WIDTH + 6).saturating_sub(6 + left.len() + right.len());
    let _ = writeln!(out, "      {left}{}{right}", " ".repeat(gap));
    let _ = writeln!(
        out,
        "      * single plan  o sequential plan  # both  R regressed {}  H healthy {}",
        rate(r.regressed),
        rate(r.healthy)
    );
    out
}

/// Points per curve in the SVG chart.
const SVG_POINTS: u32 = 200;

/// The OC curves of both plans and their ASN curves as an SVG document.
pub fn render_svg(r: &PlanReport) -> anyhow::Result<String> {
    use plotters::prelude::*;

    let (lo, hi) = curve_range(r);
    let (s, q) = (&r.single, &r.sequential);
    let points: Vec<(f64, f64, f64, f64, f64)> = (0..=SVG_POINTS)
        .map(|i| {
            let p = lo + (hi - lo) * f64::from(i) / f64::from(SVG_POINTS);
            let seq = r.sprt.oc(p);
            (
                p,
                oc::single_p_pass(s.n, s.c, p),
                seq.p_pass,
                oc::curtailed_asn(s.n, s.c, p),
                seq.asn,
            )
        })
        .collect();
    let max_asn = points.iter().fold(s.n as f64, |m, x| m.max(x.3).max(x.4)) * 1.05;
    // Enough decimals on the x-axis to tell the ticks apart on narrow ranges.
    let decimals = if hi - lo >= 0.2 {
        0
    } else if hi - lo >= 0.02 {
        1
    } else {
        2
    };
    let x_fmt = move |x: &f64| format!("{:.*}%", decimals, x * 100.0);
    let single_style = RGBColor(31, 119, 180);
    let seq_style = RGBColor(214, 39, 40);
    let mark_style = RGBColor(90, 90, 90);

    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (900, 860)).into_drawing_area();
        root.fill(&WHITE).map_err(svg_error)?;
        let (top, bottom) = root.split_vertically(430);

        let mut chart = ChartBuilder::on(&top)
            .caption(
                format!(
                    "Operating characteristic: healthy {} vs regressed {}",
                    rate(r.healthy),
                    rate(r.regressed)
                ),
                ("sans-serif", 20),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..1.0)
            .map_err(svg_error)?;
        chart
            .configure_mesh()
            .x_desc("true per-trial success rate p")
            .y_desc("P(PASS)")
            .x_label_formatter(&x_fmt)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .y_label_formatter(&|y| format!("{:.0}%", y * 100.0))
            .draw()
            .map_err(svg_error)?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.1)),
                single_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label(format!("single plan (n = {}, c = {})", s.n, s.c))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], single_style));
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.2)),
                seq_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label(format!("sequential plan (max {} trials)", q.max_trials))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], seq_style));
        draw_rate_marks(&mut chart, r, 1.0, mark_style)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(svg_error)?;

        let mut chart = ChartBuilder::on(&bottom)
            .caption(
                "Average sample number (expected trials)",
                ("sans-serif", 20),
            )
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(60)
            .build_cartesian_2d(lo..hi, 0.0..max_asn)
            .map_err(svg_error)?;
        chart
            .configure_mesh()
            .x_desc("true per-trial success rate p")
            .y_desc("expected trials")
            .x_label_formatter(&x_fmt)
            .label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 17))
            .draw()
            .map_err(svg_error)?;
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.3)),
                single_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label(format!("single plan, curtailed (at most {})", s.n))
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], single_style));
        chart
            .draw_series(LineSeries::new(
                points.iter().map(|x| (x.0, x.4)),
                seq_style.stroke_width(2),
            ))
            .map_err(svg_error)?
            .label("sequential plan")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], seq_style));
        draw_rate_marks(&mut chart, r, max_asn, mark_style)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .label_font(("sans-serif", 15))
            .draw()
            .map_err(svg_error)?;
        root.present().map_err(svg_error)?;
    }
    Ok(buf)
}

type SvgChart<'a, 'b> = plotters::chart::ChartContext<
    'a,
    plotters::backend::SVGBackend<'b>,
    plotters::coord::cartesian::Cartesian2d<
        plotters::coord::types::RangedCoordf64,
        plotters::coord::types::RangedCoordf64,
    >,
>;

/// Dashed vertical lines at the regressed and healthy rates, labelled at the top.
fn draw_rate_marks(
    chart: &mut SvgChart<'_, '_>,
    r: &PlanReport,
    top: f64,
    color: plotters::style::RGBColor,
) -> anyhow::Result<()> {
    use plotters::prelude::*;
    for (p, name) in [(r.regressed, "regressed"), (r.healthy, "healthy")] {
        chart
            .draw_series(DashedLineSeries::new(
                vec![(p, 0.0), (p, top)],
                6,
                4,
                color.stroke_width(1),
            ))
            .map_err(svg_error)?;
        chart
            .draw_series(std::iter::once(Text::new(
                format!("{name} {}", rate(p)),
                (p, top * 0.97),
                ("sans-serif", 15).into_font().color(&color),
            )))
            .map_err(svg_error)?;
    }
    Ok(())
}

/// plotters' drawing errors carry a backend type parameter; keep only the message.
fn svg_error<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("cannot draw the SVG chart: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_never_rounds_an_uncertain_probability_to_certainty() {
        assert_eq!(percent(0.999875), "99.99%");
        assert_eq!(percent(0.999), "99.9%");
        assert_eq!(percent(0.0399), "4.0%");
        assert_eq!(percent(0.0004), "0.04%");
        assert_eq!(percent(1e-9), "<0.0001%");
        assert_eq!(percent(1.0 - 1e-9), ">99.9999%");
        assert_eq!(percent(0.0), "0.0%");
        assert_eq!(percent(1.0), "100.0%");
        assert_eq!(percent(f64::NAN), "n/a");
    }

    #[test]
    fn rates_and_ordinals_read_naturally() {
        assert_eq!(rate(0.9), "90%");
        assert_eq!(rate(0.995), "99.5%");
        assert_eq!(rate(0.999), "99.9%");
        assert_eq!(rate(1e-10), "1e-8%");
        assert_eq!(num(0.05), "0.05");
        assert_eq!(num(1e-300), "1e-300");
        assert_eq!(num(0.0), "0");
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(22), "22nd");
        assert_eq!(ordinal(103), "103rd");
    }

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

    #[test]
    fn svg_has_axes_legend_and_rate_marks() {
        let r = PlanReport::build(0.9, 0.7, 0.05, 0.10, None).expect("plan");
        let svg = render_svg(&r).expect("svg");
        assert!(svg.starts_with("<svg"));
        for needle in [
            "P(PASS)",
            "expected trials",
            "true per-trial success rate p",
            "single plan (n = 33, c = 6)",
            "sequential plan (max 66 trials)",
            "regressed 70%",
            "healthy 90%",
        ] {
            assert!(svg.contains(needle), "SVG lacks {needle:?}");
        }
        assert!(svg.trim_end().ends_with("</svg>"));
    }
}
