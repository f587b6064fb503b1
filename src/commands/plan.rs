//! `gate plan`: design the single and the sequential plan that tell a healthy per-trial
//! success rate from a regressed one, and show both plans' exact risks and costs.
//!
//! Everything here is a view of [`crate::stats`]: the report is computed once
//! ([`PlanReport::build`]) and rendered as text (with a terminal OC curve and a plan-file
//! snippet), as the JSON contract documented in docs/statistics.md, or as an SVG chart.

use std::fmt::Write as _;

use anyhow::anyhow;
use serde::Serialize;

use crate::cli::{Format, PlanArgs, SequentialRuleArg};
use crate::exit;
use crate::format::percent_apart;
pub(crate) use crate::format::{num, percent, rate};
use crate::ledger::OnInconclusive;
use crate::stats::lattice::{Boundaries, single_oc};
use crate::stats::sprt::{MAX_TRIALS_LIMIT, Sprt, default_max_trials, worst_asn};
use crate::stats::{StatsError, calibrated, design, staged};

use super::plan_zone::{Designed, ZoneReport};

mod compare;

/// The one-sample rates (`--healthy`, `--regressed`); clap requires both without
/// `--compare`.
fn rates(args: &PlanArgs) -> anyhow::Result<(f64, f64)> {
    match (args.healthy, args.regressed) {
        (Some(h), Some(r)) => Ok((h, r)),
        _ => Err(anyhow!(
            "`gate plan` needs `--healthy P0 --regressed P1` (or `--compare`)"
        )),
    }
}

/// Execute `gate plan`; returns the exit code.
pub fn execute(args: &PlanArgs) -> anyhow::Result<u8> {
    if args.compare {
        return compare::execute(args);
    }
    let (healthy, regressed) = rates(args)?;
    if let Some(nc) = &args.evaluate {
        return evaluate(args, nc);
    }
    let report = PlanReport::build(&PlanOptions {
        max_trials: args.max_trials,
        wald: args.rule == SequentialRuleArg::Wald,
        on_inconclusive: args.on_inconclusive.into(),
        jobs: args.jobs,
        unavailable_rate: args.unavailable_rate,
        max_unavailable: args.max_unavailable,
        stage: args.stage,
        max_stages: args.max_stages,
        ..PlanOptions::new(healthy, regressed, args.alpha, args.beta)
    })?;
    if let Some(path) = &args.svg {
        // The one preflight of every report path: never a FIFO, device, symlink or folder,
        // written to a fresh file renamed over the name.
        let outputs = crate::publish::preflight(
            &crate::publish::Request {
                svg: Some(path),
                ..Default::default()
            },
            &[],
        )?;
        let svg = render_svg(&report)?;
        if outputs.on_stdout(crate::publish::Kind::Svg) {
            print!("{svg}");
            return Ok(exit::SUCCESS);
        }
        outputs.write(crate::publish::Kind::Svg, &svg)?;
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
        StatsError::BadLattice { .. }
        | StatsError::BadPairModel { .. }
        | StatsError::AcceptsAll { .. } => anyhow!("{err}"),
        StatsError::NotWorse { base, regressed } => anyhow!(
            "`--regressed` ({}) must be below `--base` ({}): compare detects a head worse \
             than base",
            num(regressed),
            num(base)
        ),
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

/// What `gate plan` was asked for, beyond the rates and risks.
#[derive(Debug, Clone, Copy)]
pub struct PlanOptions {
    /// Healthy per-trial success rate p0.
    pub healthy: f64,
    /// Regressed per-trial success rate p1.
    pub regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// Truncation of the sequential rule (default: twice the single plan's n).
    pub max_trials: Option<u64>,
    /// Calibrated (default) or Wald's sequential rule.
    pub wald: bool,
    /// What an INCONCLUSIVE does to the gate; it defines alpha.
    pub on_inconclusive: OnInconclusive,
    /// Parallel trials, to state the trials launched.
    pub jobs: Option<u64>,
    /// Per-trial probability of an unavailable trial, to fold the budget into the OC.
    pub unavailable_rate: Option<f64>,
    /// The unavailable budget (default: 10% of n or max_trials, rounded up).
    pub max_unavailable: Option<u64>,
    /// Trials per stage, to design the staged rule too.
    pub stage: Option<u64>,
    /// Stages at most for the staged rule.
    pub max_stages: Option<u64>,
}

impl PlanOptions {
    /// The options with every optional setting at its default.
    pub fn new(healthy: f64, regressed: f64, alpha: f64, beta: f64) -> Self {
        PlanOptions {
            healthy,
            regressed,
            alpha,
            beta,
            max_trials: None,
            wald: false,
            on_inconclusive: OnInconclusive::Fail,
            jobs: None,
            unavailable_rate: None,
            max_unavailable: None,
            stage: None,
            max_stages: None,
        }
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
    /// What an INCONCLUSIVE does to the gate (`fail` or `pass`); it defines alpha.
    pub on_inconclusive: OnInconclusive,
    /// The one definition of alpha used for every realised alpha below.
    pub alpha_definition: &'static str,
    /// The smallest single plan meeting both risks.
    pub single: SingleReport,
    /// The sequential rule for the same rates and risks.
    pub sequential: SequentialReport,
    /// Both plans over a grid of true rates (see [`oc_grid`]).
    pub oc: Vec<OcRow>,
    /// The sequential rule as failure counts: after `trials` graded trials, PASS once
    /// failures are at most `pass_max_failures`, FAIL once they are at least
    /// `fail_min_failures` (`null`: that verdict is not reachable yet). Every sequential
    /// probability and expected trial count above is computed from exactly this table.
    pub lattice: Vec<LatticeJson>,
    /// Trials launched with `--jobs`, when given.
    pub jobs: Option<JobsReport>,
    /// The risks with unavailable trials, when `--unavailable-rate` is given.
    pub unavailable: Option<UnavailableReport>,
    /// The staged rule, when `--stage` is given (see [`StagedReport`]).
    pub staged: Option<StagedReport>,
    /// Where each plan passes half the time between the two rates, and the design that
    /// halves that zone with what it costs.
    pub zone: ZoneReport,
    #[serde(skip)]
    boundaries: Boundaries,
    /// Whether the calibrated rule can be designed within this `max_trials` (for Wald's
    /// warning: it offers the calibrated rule only where one exists).
    #[serde(skip)]
    calibrated_fits: bool,
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
    /// P(not PASS | healthy) (a single plan is never INCONCLUSIVE, so under either policy).
    pub realised_alpha: f64,
    /// Expected trials of the curtailed plan when healthy.
    pub curtailed_asn_healthy: f64,
    /// Expected trials of the curtailed plan when regressed.
    pub curtailed_asn_regressed: f64,
}

/// The sequential plan in the JSON contract.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct SequentialReport {
    /// `calibrated` or `wald`.
    pub rule: &'static str,
    /// Truncation: INCONCLUSIVE after this many graded trials.
    pub max_trials: u64,
    /// Wald's rule: PASS once the LLR is at or below this (`null` for the calibrated rule).
    pub accept_llr: Option<f64>,
    /// Wald's rule: FAIL once the LLR is at or above this (`null` for the calibrated rule).
    pub reject_llr: Option<f64>,
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
    /// P(FAIL | healthy).
    pub p_fail_healthy: f64,
    /// P(INCONCLUSIVE | healthy).
    pub p_inconclusive_healthy: f64,
    /// P(PASS | regressed): the realised consumer's risk.
    pub p_pass_regressed: f64,
    /// P(FAIL | regressed).
    pub p_fail_regressed: f64,
    /// P(INCONCLUSIVE | regressed).
    pub p_inconclusive_regressed: f64,
    /// The realised producer's risk under `alpha_definition`.
    pub realised_alpha: f64,
    /// The realised consumer's risk, P(PASS | regressed).
    pub realised_beta: f64,
    /// Expected trials when healthy.
    pub asn_healthy: f64,
    /// Expected trials when regressed.
    pub asn_regressed: f64,
    /// The largest expected trials over rates between regressed and healthy.
    pub asn_max: f64,
    /// The rate at which `asn_max` occurs.
    pub asn_max_p: f64,
    /// Wald's lower bound on the expected trials of ANY test with these risks, when healthy.
    pub asn_bound_healthy: f64,
    /// The same bound when regressed.
    pub asn_bound_regressed: f64,
    /// `asn_healthy / asn_bound_healthy`: how close to the information limit (1 is the limit).
    pub asn_ratio_healthy: f64,
    /// `asn_regressed / asn_bound_regressed`.
    pub asn_ratio_regressed: f64,
    /// Fraction of the curtailed single plan's expected trials saved when healthy
    /// (negative: costs more).
    pub saving_healthy: f64,
    /// The same when regressed.
    pub saving_regressed: f64,
}

/// Expected trials LAUNCHED with `--jobs J`: graded trials plus those in flight when the
/// decision is reached (cancelled, but paid for), when trials finish in ordinal order.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct JobsReport {
    /// Parallel trials.
    pub jobs: u64,
    /// Single plan (curtailed), healthy.
    pub single_launched_healthy: f64,
    /// Single plan (curtailed), regressed.
    pub single_launched_regressed: f64,
    /// Sequential rule, healthy.
    pub sequential_launched_healthy: f64,
    /// Sequential rule, regressed.
    pub sequential_launched_regressed: f64,
}

/// The exact risks when each trial is unavailable with probability `rate` and more than
/// `budget` unavailable trials make the task INCONCLUSIVE.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct UnavailableReport {
    /// Per-trial probability of an unavailable trial.
    pub rate: f64,
    /// The single plan with its budget.
    pub single: UnavailableRisks,
    /// The sequential rule with its budget.
    pub sequential: UnavailableRisks,
}

/// One rule's risks with unavailable trials.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct UnavailableRisks {
    /// Unavailable trials tolerated (one more is INCONCLUSIVE).
    pub budget: u64,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(FAIL | healthy).
    pub p_fail_healthy: f64,
    /// P(INCONCLUSIVE | healthy) because the budget ran out.
    pub p_budget_healthy: f64,
    /// The realised producer's risk under `alpha_definition`.
    pub realised_alpha: f64,
    /// P(PASS | regressed).
    pub realised_beta: f64,
    /// Expected trials run (graded and unavailable) when healthy.
    pub trials_healthy: f64,
    /// Expected trials run when regressed.
    pub trials_regressed: f64,
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

/// The producer's risk of a rule under a policy: every non-PASS when an INCONCLUSIVE fails
/// the gate, only FAIL when it passes.
fn alpha_of(policy: OnInconclusive, p_pass: f64, p_fail: f64) -> f64 {
    match policy {
        OnInconclusive::Fail => 1.0 - p_pass,
        OnInconclusive::Pass => p_fail,
    }
}

/// The words for [`alpha_of`].
fn alpha_words(policy: OnInconclusive) -> &'static str {
    match policy {
        OnInconclusive::Fail => "P(not PASS | healthy): an INCONCLUSIVE fails the gate",
        OnInconclusive::Pass => "P(FAIL | healthy): an INCONCLUSIVE passes the gate",
    }
}

impl PlanReport {
    /// Validate the flags and compute both plans. Errors name the flag and its range.
    pub fn build(o: &PlanOptions) -> anyhow::Result<Self> {
        let PlanOptions {
            healthy,
            regressed,
            alpha,
            beta,
            ..
        } = *o;
        let single = design::design_single(healthy, regressed, alpha, beta).map_err(flag_error)?;
        let max_trials = match o.max_trials {
            Some(m) => crate::stats::check_trials("max_trials", m)
                .map(|()| m)
                .map_err(flag_error)?,
            None => default_max_trials(healthy, regressed, alpha, beta).map_err(flag_error)?,
        };
        let sprt = Sprt::new(healthy, regressed, alpha, beta, max_trials).map_err(flag_error)?;
        let (rule, boundaries, calibrated_fits) = if o.wald {
            // A truncation no verdict can be reached within is not a plan.
            sprt.check_reachable().map_err(flag_error)?;
            let wald = Boundaries::wald(&sprt);
            let (h, r) = (wald.oc(healthy), wald.oc(regressed));
            // Only a Wald rule that breaks a risk prints the warning that needs this.
            let breaks = alpha_of(o.on_inconclusive, h.p_pass, h.p_fail) > alpha || r.p_pass > beta;
            let fits = breaks
                && calibrated::design_calibrated(healthy, regressed, alpha, beta, Some(max_trials))
                    .is_ok();
            ("wald", wald, fits)
        } else {
            let d =
                calibrated::design_calibrated(healthy, regressed, alpha, beta, Some(max_trials))
                    .map_err(flag_error)?;
            ("calibrated", d.boundaries, true)
        };
        // Every published sequential figure comes from the lattice that is published.
        let at_healthy = boundaries.oc(healthy);
        let at_regressed = boundaries.oc(regressed);
        let worst = worst_asn(regressed, healthy, |p| boundaries.oc(p).asn);
        let (earliest_pass, earliest_fail) = boundaries.earliest();
        let (bound_h, bound_r) = calibrated::wald_bound(healthy, regressed, alpha, beta);
        let curtailed_h = single_oc(single.n, single.c, healthy).asn;
        let curtailed_r = single_oc(single.n, single.c, regressed).asn;
        let policy = o.on_inconclusive;
        let sequential = SequentialReport {
            rule,
            max_trials,
            accept_llr: o.wald.then(|| sprt.accept_llr()),
            reject_llr: o.wald.then(|| sprt.reject_llr()),
            llr_per_success: sprt.llr(1, 0),
            llr_per_failure: sprt.llr(0, 1),
            earliest_pass,
            earliest_fail,
            p_pass_healthy: at_healthy.p_pass,
            p_fail_healthy: at_healthy.p_fail,
            p_inconclusive_healthy: at_healthy.p_inconclusive,
            p_pass_regressed: at_regressed.p_pass,
            p_fail_regressed: at_regressed.p_fail,
            p_inconclusive_regressed: at_regressed.p_inconclusive,
            realised_alpha: alpha_of(policy, at_healthy.p_pass, at_healthy.p_fail),
            realised_beta: at_regressed.p_pass,
            asn_healthy: at_healthy.asn,
            asn_regressed: at_regressed.asn,
            asn_max: worst.asn,
            asn_max_p: worst.p,
            asn_bound_healthy: bound_h,
            asn_bound_regressed: bound_r,
            asn_ratio_healthy: at_healthy.asn / bound_h,
            asn_ratio_regressed: at_regressed.asn / bound_r,
            saving_healthy: 1.0 - at_healthy.asn / curtailed_h,
            saving_regressed: 1.0 - at_regressed.asn / curtailed_r,
        };
        let single_lattice = Boundaries::single(single.n, single.c).map_err(flag_error)?;
        let jobs = o.jobs.map(|jobs| JobsReport {
            jobs,
            single_launched_healthy: single_lattice.expected_launched(healthy, jobs),
            single_launched_regressed: single_lattice.expected_launched(regressed, jobs),
            sequential_launched_healthy: boundaries.expected_launched(healthy, jobs),
            sequential_launched_regressed: boundaries.expected_launched(regressed, jobs),
        });
        let unavailable = match o.unavailable_rate {
            None => None,
            Some(u) if !(0.0..1.0).contains(&u) => {
                return Err(anyhow!(
                    "`--unavailable-rate` must be at least 0 and below 1, got `{}`",
                    num(u)
                ));
            }
            Some(u) => {
                let risks = |b: &Boundaries, budget: Option<u64>| {
                    let budget = budget.unwrap_or_else(|| b.max_trials().div_ceil(10));
                    let (h, r) = (
                        b.oc_unavailable(healthy, u, budget),
                        b.oc_unavailable(regressed, u, budget),
                    );
                    UnavailableRisks {
                        budget,
                        p_pass_healthy: h.p_pass,
                        p_fail_healthy: h.p_fail,
                        p_budget_healthy: h.p_budget,
                        realised_alpha: alpha_of(policy, h.p_pass, h.p_fail),
                        realised_beta: r.p_pass,
                        trials_healthy: h.asn_trials,
                        trials_regressed: r.asn_trials,
                    }
                };
                Some(UnavailableReport {
                    rate: u,
                    single: risks(&single_lattice, o.max_unavailable),
                    sequential: risks(&boundaries, o.max_unavailable),
                })
            }
        };
        let single = SingleReport {
            n: single.n,
            c: single.c,
            min_successes: single.min_successes(),
            p_pass_healthy: single.p_pass_healthy,
            p_pass_regressed: single.p_pass_regressed,
            realised_alpha: single_oc(single.n, single.c, healthy).p_fail,
            curtailed_asn_healthy: curtailed_h,
            curtailed_asn_regressed: curtailed_r,
        };
        let zone = ZoneReport::build(&Designed {
            healthy,
            regressed,
            alpha,
            beta,
            single: &single_lattice,
            sequential: &boundaries,
            wald: o.wald,
        });
        let oc = oc_grid(healthy, regressed)
            .into_iter()
            .map(|p| {
                let seq = boundaries.oc(p);
                OcRow {
                    p,
                    single_p_pass: single_oc(single.n, single.c, p).p_pass,
                    single_curtailed_asn: single_oc(single.n, single.c, p).asn,
                    sequential_p_pass: seq.p_pass,
                    sequential_p_fail: seq.p_fail,
                    sequential_p_inconclusive: seq.p_inconclusive,
                    sequential_asn: seq.asn,
                }
            })
            .collect();
        let lattice = boundaries
            .rows()
            .iter()
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
            on_inconclusive: policy,
            alpha_definition: alpha_words(policy),
            single,
            sequential,
            oc,
            lattice,
            jobs,
            unavailable,
            staged: staged_report(o, &single_lattice, &boundaries)?,
            zone,
            boundaries,
            calibrated_fits,
        })
    }
}

/// `gate plan --evaluate N,C`: an existing single plan judged at the given rates.
#[derive(Debug, Clone, Serialize)]
pub struct EvaluateReport {
    /// Trials.
    pub n: u64,
    /// Acceptance number.
    pub c: u64,
    /// Healthy per-trial success rate.
    pub healthy: f64,
    /// Regressed per-trial success rate.
    pub regressed: f64,
    /// Producer's risk asked for.
    pub alpha: f64,
    /// Consumer's risk asked for.
    pub beta: f64,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(PASS | regressed).
    pub p_pass_regressed: f64,
    /// P(not PASS | healthy) (a single plan is never INCONCLUSIVE).
    pub realised_alpha: f64,
    /// P(PASS | regressed).
    pub realised_beta: f64,
    /// Whether the realised alpha is within the request.
    pub meets_alpha: bool,
    /// Whether the realised beta is within the request.
    pub meets_beta: bool,
    /// Expected trials with curtailment, healthy.
    pub curtailed_asn_healthy: f64,
    /// Expected trials with curtailment, regressed.
    pub curtailed_asn_regressed: f64,
    /// Wald's lower bound at the healthy rate for the requested risks.
    pub asn_bound_healthy: f64,
    /// Wald's lower bound at the regressed rate for the requested risks.
    pub asn_bound_regressed: f64,
    /// Trials launched with `--jobs`, when given.
    pub launched: Option<EvaluateLaunched>,
    /// Risks with unavailable trials, when `--unavailable-rate` is given.
    pub unavailable: Option<EvaluateUnavailable>,
    /// P(PASS) and curtailed expected trials over the OC grid.
    pub oc: Vec<EvaluateRow>,
}

/// `--evaluate` with `--jobs`: expected trials launched (graded + cancelled in flight).
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvaluateLaunched {
    /// Parallel trials.
    pub jobs: u64,
    /// Expected trials launched when healthy.
    pub launched_healthy: f64,
    /// Expected trials launched when regressed.
    pub launched_regressed: f64,
}

/// `--evaluate` with `--unavailable-rate`: the plan's risks with unavailable trials.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvaluateUnavailable {
    /// Per-trial probability of an unavailable trial.
    pub rate: f64,
    /// The risks, as in `gate plan`'s `unavailable.single`.
    #[serde(flatten)]
    pub risks: UnavailableRisks,
}

/// One row of [`EvaluateReport::oc`].
#[derive(Debug, Clone, Copy, Serialize)]
pub struct EvaluateRow {
    /// True per-trial success rate.
    pub p: f64,
    /// P(PASS).
    pub p_pass: f64,
    /// Expected trials, curtailed.
    pub curtailed_asn: f64,
}

/// Parse `N,C` as a single plan.
fn parse_nc(nc: &str) -> anyhow::Result<(u64, u64)> {
    let bad = || anyhow!("`--evaluate` takes a single plan as `N,C` (e.g. `33,6`), got `{nc}`");
    let (n, c) = nc.split_once(',').ok_or_else(bad)?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    let c: u64 = c.trim().parse().map_err(|_| bad())?;
    // The one validation of a single plan, with the flag's name in front.
    crate::model::Sampling::Single { n, c }
        .rule()
        .map_err(|e| match e {
            StatsError::OutOfRange { range, value, .. } => {
                anyhow!("`--evaluate`: `n` must be {range}, got `{}`", num(value))
            }
            e => anyhow!("`--evaluate`: {e}"),
        })?;
    Ok((n, c))
}

impl EvaluateReport {
    /// Judge (n, c) at the options' rates; the risks are only compared, not designed for.
    pub fn build(n: u64, c: u64, o: &PlanOptions) -> anyhow::Result<Self> {
        let (healthy, regressed, alpha, beta) = (o.healthy, o.regressed, o.alpha, o.beta);
        crate::stats::check_rates(healthy, regressed, alpha, beta).map_err(flag_error)?;
        let lattice = Boundaries::single(n, c).map_err(flag_error)?;
        let (bound_h, bound_r) = calibrated::wald_bound(healthy, regressed, alpha, beta);
        let realised_alpha = single_oc(n, c, healthy).p_fail;
        let realised_beta = single_oc(n, c, regressed).p_pass;
        let unavailable = match o.unavailable_rate {
            None => None,
            Some(u) if !(0.0..1.0).contains(&u) => {
                return Err(anyhow!(
                    "`--unavailable-rate` must be at least 0 and below 1, got `{}`",
                    num(u)
                ));
            }
            Some(u) => {
                let budget = o.max_unavailable.unwrap_or_else(|| n.div_ceil(10));
                let (h, r) = (
                    lattice.oc_unavailable(healthy, u, budget),
                    lattice.oc_unavailable(regressed, u, budget),
                );
                Some(EvaluateUnavailable {
                    rate: u,
                    risks: UnavailableRisks {
                        budget,
                        p_pass_healthy: h.p_pass,
                        p_fail_healthy: h.p_fail,
                        p_budget_healthy: h.p_budget,
                        realised_alpha: alpha_of(o.on_inconclusive, h.p_pass, h.p_fail),
                        realised_beta: r.p_pass,
                        trials_healthy: h.asn_trials,
                        trials_regressed: r.asn_trials,
                    },
                })
            }
        };
        Ok(EvaluateReport {
            n,
            c,
            healthy,
            regressed,
            alpha,
            beta,
            p_pass_healthy: single_oc(n, c, healthy).p_pass,
            p_pass_regressed: realised_beta,
            realised_alpha,
            realised_beta,
            meets_alpha: realised_alpha <= alpha,
            meets_beta: realised_beta <= beta,
            curtailed_asn_healthy: single_oc(n, c, healthy).asn,
            curtailed_asn_regressed: single_oc(n, c, regressed).asn,
            asn_bound_healthy: bound_h,
            asn_bound_regressed: bound_r,
            launched: o.jobs.map(|j| EvaluateLaunched {
                jobs: j,
                launched_healthy: lattice.expected_launched(healthy, j),
                launched_regressed: lattice.expected_launched(regressed, j),
            }),
            unavailable,
            oc: oc_grid(healthy, regressed)
                .into_iter()
                .map(|p| EvaluateRow {
                    p,
                    p_pass: single_oc(n, c, p).p_pass,
                    curtailed_asn: single_oc(n, c, p).asn,
                })
                .collect(),
        })
    }
}

/// The human-readable `--evaluate` report.
pub fn render_evaluate(e: &EvaluateReport) -> String {
    let mut out = String::new();
    let (h, g) = (rate(e.healthy), rate(e.regressed));
    let verdict = |ok: bool| if ok { "within" } else { "ABOVE" };
    let _ = writeln!(
        out,
        "Single plan (n {}, c {}): run {}, pass if at most {} fail\n",
        e.n,
        e.c,
        trials(e.n),
        e.c
    );
    let _ = writeln!(
        out,
        "  P(PASS | healthy {h})    {:>8}  alpha = P(not PASS | healthy) {}, {} the requested {}",
        percent(e.p_pass_healthy),
        percent(e.realised_alpha),
        verdict(e.meets_alpha),
        percent(e.alpha)
    );
    let _ = writeln!(
        out,
        "  P(PASS | regressed {g})  {:>8}  beta {}, {} the requested {}",
        percent(e.p_pass_regressed),
        percent(e.realised_beta),
        verdict(e.meets_beta),
        percent(e.beta)
    );
    let _ = writeln!(
        out,
        "  curtailed expected trials: {:.1} when healthy, {:.1} when regressed\n  \
         (information limit for these risks: {:.1} / {:.1})",
        e.curtailed_asn_healthy,
        e.curtailed_asn_regressed,
        e.asn_bound_healthy,
        e.asn_bound_regressed
    );
    if let Some(EvaluateLaunched {
        jobs: j,
        launched_healthy: lh,
        launched_regressed: lr,
    }) = e.launched
    {
        let _ = writeln!(
            out,
            "  with --jobs {j}: {lh:.1} / {lr:.1} trials launched (graded + cancelled in flight, \
             trials finishing in ordinal order)"
        );
    }
    if let Some(EvaluateUnavailable { rate: u, risks: x }) = &e.unavailable {
        let _ = writeln!(
            out,
            "  with {} of trials unavailable, budget {}: alpha {} (INCONCLUSIVE by the budget {}), \
             beta {}",
            rate(*u),
            x.budget,
            percent(x.realised_alpha),
            percent(x.p_budget_healthy),
            percent(x.realised_beta)
        );
    }
    let _ = writeln!(out, "\nOperating characteristic (exact)");
    let _ = writeln!(
        out,
        "  {:>9} {:>10} {:>16}",
        "true rate", "P(PASS)", "expected trials"
    );
    for row in &e.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>10} {:>16.1}",
            rate(row.p),
            percent(row.p_pass),
            row.curtailed_asn
        );
    }
    out
}

/// `gate plan --evaluate N,C`.
fn evaluate(args: &PlanArgs, nc: &str) -> anyhow::Result<u8> {
    let (n, c) = parse_nc(nc)?;
    let (healthy, regressed) = rates(args)?;
    let report = EvaluateReport::build(
        n,
        c,
        &PlanOptions {
            on_inconclusive: args.on_inconclusive.into(),
            jobs: args.jobs,
            unavailable_rate: args.unavailable_rate,
            max_unavailable: args.max_unavailable,
            ..PlanOptions::new(healthy, regressed, args.alpha, args.beta)
        },
    )?;
    match args.format {
        Format::Text => print!("{}", render_evaluate(&report)),
        Format::Json => println!("{}", serde_json::to_string_pretty(&report)?),
    }
    Ok(exit::SUCCESS)
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
         with producer's risk alpha {} and consumer's risk beta {}.\n\
         alpha is {}; beta is P(PASS | regressed).\n",
        num(r.alpha),
        num(r.beta),
        r.alpha_definition
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

    match (q.accept_llr, q.reject_llr) {
        (Some(accept), Some(reject)) => {
            let _ = writeln!(
                out,
                "Sequential plan: Wald's SPRT (rule: wald), at most {}\n  \
                 the LLR moves {:+.3} per failure and {:+.3} per success;\n  \
                 FAIL once LLR >= {:.3}, PASS once LLR <= {:.3} (Wald's thresholds: the\n  \
                 exact risks below may land above or below the request)",
                trials(q.max_trials),
                q.llr_per_failure,
                q.llr_per_success,
                reject,
                accept
            );
        }
        _ => {
            let _ = writeln!(
                out,
                "Sequential plan: calibrated (rule: calibrated), at most {}\n  \
                 a truncated test on the (trials, failures) lattice whose exact risks are\n  \
                 within the request, never costlier than Wald's rule or the single plan",
                trials(q.max_trials)
            );
        }
    }
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
        "  realised alpha {} ({}), realised beta {} (P(PASS | regressed))",
        percent(q.realised_alpha),
        alpha_short(r.on_inconclusive),
        percent(q.realised_beta)
    );
    for (name, realised, asked) in [
        ("alpha", q.realised_alpha, r.alpha),
        ("beta", q.realised_beta, r.beta),
    ] {
        if realised > asked {
            let (realised, asked) = percent_apart(realised, asked);
            let _ = writeln!(
                out,
                "  warning: the realised {name} {realised} is above the requested {asked}; {}",
                if r.calibrated_fits {
                    "the\n  calibrated rule (the default) keeps it"
                } else {
                    "no\n  calibrated rule fits within these max_trials either: raise `--max-trials`"
                }
            );
        }
    }
    let _ = writeln!(
        out,
        "  information limit (Wald's lower bound for ANY test with these risks): {:.1} trials\n  \
         when healthy, {:.1} when regressed; this plan spends {:.2}x and {:.2}x that",
        q.asn_bound_healthy, q.asn_bound_regressed, q.asn_ratio_healthy, q.asn_ratio_regressed
    );
    discreteness_note(&mut out, r);
    let _ = writeln!(
        out,
        "  against the curtailed single plan ({:.1} / {:.1} expected trials): {} when healthy,\n  \
         {} when regressed\n",
        s.curtailed_asn_healthy,
        s.curtailed_asn_regressed,
        saving(q.saving_healthy),
        saving(q.saving_regressed)
    );
    super::plan_zone::render(&mut out, &r.zone, s.curtailed_asn_healthy, q.asn_healthy);
    if let Some(j) = &r.jobs {
        let _ = writeln!(
            out,
            "With --jobs {}: expected trials LAUNCHED (graded + cancelled in flight at the decision,\n\
             when trials finish in ordinal order; uneven durations can launch more)",
            j.jobs
        );
        let _ = writeln!(
            out,
            "  single plan      {:.1} when healthy, {:.1} when regressed\n  \
             sequential plan  {:.1} when healthy, {:.1} when regressed\n",
            j.single_launched_healthy,
            j.single_launched_regressed,
            j.sequential_launched_healthy,
            j.sequential_launched_regressed
        );
    }
    if let Some(u) = &r.unavailable {
        let _ = writeln!(
            out,
            "With {} of trials unavailable (transport faults, `timeout: unavailable`), exact:",
            rate(u.rate)
        );
        for (name, x) in [
            ("single plan", &u.single),
            ("sequential plan", &u.sequential),
        ] {
            let _ = writeln!(
                out,
                "  {name:<16} budget {}: alpha {}, beta {}, expected trials {:.1} / {:.1}\n  \
                 {:<16} (a healthy agent is INCONCLUSIVE by the budget {} of the time)",
                x.budget,
                percent(x.realised_alpha),
                percent(x.realised_beta),
                x.trials_healthy,
                x.trials_regressed,
                "",
                percent(x.p_budget_healthy),
            );

            if x.realised_alpha > r.alpha {
                let _ = writeln!(
                    out,
                    "  warning: with these faults the {name} fails a healthy agent {} of the \
                     time,\n  above alpha {}: raise `policy.max_unavailable` or fix the faults",
                    percent(x.realised_alpha),
                    percent(r.alpha)
                );
            }
        }
        let _ = writeln!(
            out,
            "  note: `timeout: unavailable` replaces a timed-out trial instead of counting it, \
             so a\n  regression whose failures are slow can hide behind the budget\n"
        );
    }

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
    if let Some(st) = &r.staged {
        render_staged(&mut out, r, st);
    }

    let _ = writeln!(out, "Plan file snippet (sampling rule):");
    let _ = writeln!(
        out,
        "version: 1\nsampling:\n  single: {{n: {}, c: {}}}\n  \
         # or the sequential test (expected {:.1} trials when healthy, {:.1} when regressed):\n  \
         # sequential: {{healthy: {}, regressed: {}, alpha: {}, beta: {}, max_trials: {}{}}}",
        s.n,
        s.c,
        q.asn_healthy,
        q.asn_regressed,
        num(r.healthy),
        num(r.regressed),
        num(r.alpha),
        num(r.beta),
        q.max_trials,
        if q.rule == "wald" { ", rule: wald" } else { "" }
    );
    out
}

/// The staged rule of `gate plan --stage B`, in the JSON contract: decisions only after every
/// `stage` trials, so each stage runs as one round of parallel jobs (shards). Compared at the
/// two rates with the fully sequential rule above (one trial at a time) and with the single
/// plan looked at only at the same stage ends. Trials are expected trials run (all of a
/// stage's trials run); stages are expected rounds, the wall-time proxy.
#[derive(Debug, Clone, Serialize)]
pub struct StagedReport {
    /// Trials per stage (B).
    pub stage: u64,
    /// Stages at most.
    pub max_stages: u64,
    /// Truncation: trials at most (the last stage is shorter when not a multiple of B).
    pub max_trials: u64,
    /// `calibrated` or `wald` (Wald's thresholds consulted at stage ends).
    pub rule: &'static str,
    /// P(PASS | healthy).
    pub p_pass_healthy: f64,
    /// P(FAIL | healthy).
    pub p_fail_healthy: f64,
    /// P(INCONCLUSIVE | healthy).
    pub p_inconclusive_healthy: f64,
    /// P(PASS | regressed).
    pub p_pass_regressed: f64,
    /// P(FAIL | regressed).
    pub p_fail_regressed: f64,
    /// P(INCONCLUSIVE | regressed).
    pub p_inconclusive_regressed: f64,
    /// The producer's risk under the `on_inconclusive` policy.
    pub realised_alpha: f64,
    /// P(PASS | regressed).
    pub realised_beta: f64,
    /// Expected trials run, healthy.
    pub trials_healthy: f64,
    /// Expected trials run, regressed.
    pub trials_regressed: f64,
    /// Expected stages run, healthy.
    pub stages_healthy: f64,
    /// Expected stages run, regressed.
    pub stages_regressed: f64,
    /// The fully sequential rule (one trial at a time: its stages are its trials), healthy.
    pub sequential_trials_healthy: f64,
    /// The fully sequential rule, regressed.
    pub sequential_trials_regressed: f64,
    /// The single plan decided only at the same stage ends: expected trials, healthy.
    pub single_trials_healthy: f64,
    /// The single plan at stage ends: expected trials, regressed.
    pub single_trials_regressed: f64,
    /// The single plan at stage ends: expected stages, healthy.
    pub single_stages_healthy: f64,
    /// The single plan at stage ends: expected stages, regressed.
    pub single_stages_regressed: f64,
    /// The staged rule over the OC grid.
    pub oc: Vec<StagedOcRow>,
    /// The decision rows at the stage ends (every other row continues).
    pub lattice: Vec<LatticeJson>,
}

/// One row of the staged OC table.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct StagedOcRow {
    /// True per-trial success rate.
    pub p: f64,
    /// P(PASS).
    pub p_pass: f64,
    /// P(FAIL).
    pub p_fail: f64,
    /// P(INCONCLUSIVE).
    pub p_inconclusive: f64,
    /// Expected trials run.
    pub trials: f64,
    /// Expected stages run.
    pub stages: f64,
}

/// The staged rule for `--stage`, or None without it. `single` is the single plan's lattice
/// and `sequential` the fully sequential rule already designed.
fn staged_report(
    o: &PlanOptions,
    single: &Boundaries,
    sequential: &Boundaries,
) -> anyhow::Result<Option<StagedReport>> {
    let Some(stage) = o.stage else {
        return Ok(None);
    };
    let PlanOptions {
        healthy,
        regressed,
        alpha,
        beta,
        ..
    } = *o;
    staged::check_stage(stage).map_err(flag_error)?;
    let max_trials =
        staged::staged_max_trials(Some(single.max_trials()), stage, None, o.max_stages)
            .unwrap_or(single.max_trials());
    if max_trials > MAX_TRIALS_LIMIT {
        return Err(anyhow!(
            "`--max-stages` × `--stage` must be at most {MAX_TRIALS_LIMIT} trials, got `{max_trials}`"
        ));
    }
    let (rule, boundaries) = if o.wald {
        let sprt = Sprt::new(healthy, regressed, alpha, beta, max_trials).map_err(flag_error)?;
        sprt.check_reachable().map_err(flag_error)?;
        ("wald", staged::wald_staged(&sprt, stage))
    } else {
        let d = staged::design_staged(healthy, regressed, alpha, beta, stage, Some(max_trials))
            .map_err(|e| match e {
                StatsError::NoSequential { max_trials, .. } => anyhow!(
                    "no staged rule with stages of {stage} and at most {max_trials} trials meets \
                     both risks: raise `--max-stages`, or use smaller stages"
                ),
                e => flag_error(e),
            })?;
        ("calibrated", d.boundaries)
    };
    // The design may stop sooner than asked (its single-plan fallback ends at n).
    let max_trials = boundaries.max_trials();
    let (h, r) = (boundaries.oc(healthy), boundaries.oc(regressed));
    let single_staged = staged::at_stage_ends(single, stage);
    let stages = |b: &Boundaries, p: f64| staged::expected_stages(b, stage, p);
    let oc = oc_grid(healthy, regressed)
        .into_iter()
        .map(|p| {
            let x = boundaries.oc(p);
            StagedOcRow {
                p,
                p_pass: x.p_pass,
                p_fail: x.p_fail,
                p_inconclusive: x.p_inconclusive,
                trials: x.asn,
                stages: stages(&boundaries, p),
            }
        })
        .collect();
    let lattice = boundaries
        .rows()
        .iter()
        .filter(|row| row.pass_max_failures.is_some() || row.fail_min_failures.is_some())
        .map(|row| LatticeJson {
            trials: row.trials,
            pass_max_failures: row.pass_max_failures,
            fail_min_failures: row.fail_min_failures,
        })
        .collect();
    Ok(Some(StagedReport {
        stage,
        max_stages: staged::stage_of(stage, max_trials),
        max_trials,
        rule,
        p_pass_healthy: h.p_pass,
        p_fail_healthy: h.p_fail,
        p_inconclusive_healthy: h.p_inconclusive,
        p_pass_regressed: r.p_pass,
        p_fail_regressed: r.p_fail,
        p_inconclusive_regressed: r.p_inconclusive,
        realised_alpha: alpha_of(o.on_inconclusive, h.p_pass, h.p_fail),
        realised_beta: r.p_pass,
        trials_healthy: h.asn,
        trials_regressed: r.asn,
        stages_healthy: stages(&boundaries, healthy),
        stages_regressed: stages(&boundaries, regressed),
        sequential_trials_healthy: sequential.oc(healthy).asn,
        sequential_trials_regressed: sequential.oc(regressed).asn,
        single_trials_healthy: single_staged.oc(healthy).asn,
        single_trials_regressed: single_staged.oc(regressed).asn,
        single_stages_healthy: stages(&single_staged, healthy),
        single_stages_regressed: stages(&single_staged, regressed),
        oc,
        lattice,
    }))
}

/// The staged section of `gate plan --stage B`'s text.
fn render_staged(out: &mut String, r: &PlanReport, st: &StagedReport) {
    let (h, g) = (rate(r.healthy), rate(r.regressed));
    let _ = writeln!(
        out,
        "Staged plan: {} rule deciding only after every {} trials (each stage one round of \
         parallel shards), at most {} stages ({})",
        st.rule,
        st.stage,
        st.max_stages,
        trials(st.max_trials)
    );
    let _ = writeln!(
        out,
        "  P(PASS | healthy {h})    {:>7}  (realised alpha {}; asked {})\n  \
         P(PASS | regressed {g})  {:>7}  (realised beta; asked {})",
        percent(st.p_pass_healthy),
        percent(st.realised_alpha),
        percent(r.alpha),
        percent(st.p_pass_regressed),
        percent(r.beta)
    );
    let _ = writeln!(
        out,
        "  {:<34} {:>19} {:>19}\n  {:<34} {:>9} {:>9} {:>9} {:>9}",
        "expected", "trials", "stages (rounds)", "", "healthy", "regressed", "healthy", "regressed"
    );
    let rows = [
        (
            format!("staged, stages of {}", st.stage),
            (st.trials_healthy, st.trials_regressed),
            (st.stages_healthy, st.stages_regressed),
        ),
        (
            "fully sequential, one at a time".to_string(),
            (st.sequential_trials_healthy, st.sequential_trials_regressed),
            (st.sequential_trials_healthy, st.sequential_trials_regressed),
        ),
        (
            "single plan at the same stage ends".to_string(),
            (st.single_trials_healthy, st.single_trials_regressed),
            (st.single_stages_healthy, st.single_stages_regressed),
        ),
    ];
    for (label, (th, tr), (sh, sr)) in &rows {
        let _ = writeln!(out, "  {label:<34} {th:>9.1} {tr:>9.1} {sh:>9.2} {sr:>9.2}");
    }
    let _ = writeln!(
        out,
        "\n  {:>9} {:>10} {:>15} {:>8} {:>8}",
        "true rate", "P(PASS)", "P(INCONCLUSIVE)", "trials", "stages"
    );
    for row in &st.oc {
        let _ = writeln!(
            out,
            "  {:>9} {:>10} {:>15} {:>8.1} {:>8.2}",
            rate(row.p),
            percent(row.p_pass),
            percent(row.p_inconclusive),
            row.trials,
            row.stages
        );
    }
    let _ = writeln!(
        out,
        "\n  Stage ends (PASS at most / FAIL at least this many failures):"
    );
    for row in &st.lattice {
        let show = |x: Option<u64>| x.map_or("-".to_string(), |v| v.to_string());
        let _ = writeln!(
            out,
            "    after {:>5} trials: PASS <= {:>4}  FAIL >= {:>4}",
            row.trials,
            show(row.pass_max_failures),
            show(row.fail_min_failures)
        );
    }
    let _ = writeln!(
        out,
        "  plan file: sequential: {{healthy: {}, regressed: {}, alpha: {}, beta: {}, stage: {}, max_stages: {}{}}}\n",
        num(r.healthy),
        num(r.regressed),
        num(r.alpha),
        num(r.beta),
        st.stage,
        st.max_stages,
        if st.rule == "wald" {
            ", rule: wald"
        } else {
            ""
        }
    );
}

/// When a design is far from Wald's bound because of the lattice, say so. The bound assumes
/// the LLR lands exactly on a threshold; when one trial moves it a large part of the way
/// (a fifth or more), every test overshoots by up to a whole step, so the distance is the
/// discreteness of whole trials, not the rule.
fn discreteness_note(out: &mut String, r: &PlanReport) {
    let q = &r.sequential;
    if q.asn_ratio_healthy <= 1.10 && q.asn_ratio_regressed <= 1.10 {
        return;
    }
    let to_fail = ((1.0 - r.beta) / r.alpha).ln();
    let to_pass = (r.beta / (1.0 - r.alpha)).ln();
    let (fail_share, pass_share) = (q.llr_per_failure / to_fail, q.llr_per_success / to_pass);
    if fail_share.max(pass_share) < 0.2 {
        return;
    }
    let _ = writeln!(
        out,
        "  note: one failure moves the LLR {:.0}% of the way to Wald's FAIL threshold, one \
         success {:.0}%\n  of the way to PASS: on a lattice this coarse any test overshoots \
         by up to a step, which\n  the bound ignores; that, not the rule, keeps this design \
         above the bound",
        fail_share * 100.0,
        pass_share * 100.0
    );
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

/// A fraction of trials saved, in words.
fn saving(saved: f64) -> String {
    if saved >= 0.0 {
        format!("saves {:.0}%", saved * 100.0)
    } else {
        format!("costs {:.0}% more", -saved * 100.0)
    }
}

/// The definition of alpha under a policy, short.
fn alpha_short(policy: OnInconclusive) -> &'static str {
    match policy {
        OnInconclusive::Fail => "P(not PASS | healthy)",
        OnInconclusive::Pass => "P(FAIL | healthy)",
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
                row_of(single_oc(r.single.n, r.single.c, p).p_pass),
                row_of(r.boundaries.oc(p).p_pass),
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
            let seq = r.boundaries.oc(p);
            (
                p,
                single_oc(s.n, s.c, p).p_pass,
                seq.p_pass,
                single_oc(s.n, s.c, p).asn,
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
    fn rates_and_ordinals_read_naturally() {
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
        let r = PlanReport::build(&PlanOptions::new(0.9, 0.7, 0.05, 0.10)).expect("plan");
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
