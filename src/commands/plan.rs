//! `gate plan`: design the single and the sequential plan that tell a healthy per-trial
//! success rate from a regressed one, and show both plans' exact risks and costs.
//!
//! Glue only: the flags become [`OneSampleOptions`], [`crate::design`] computes the report
//! once, [`crate::report::design`] renders it as text (with a terminal OC curve and a
//! plan-file snippet) or as an SVG chart, and serde writes the JSON contract of
//! docs/statistics.md. This file words the design's errors in the flags' names.

use crate::cli::{Format, PlanArgs};
use crate::design::{DesignError, EvaluateReport, OneSampleOptions, OneSampleReport};
use crate::error::{Error, usage};
use crate::exit;
use crate::format::num;
use crate::report::design::{render_evaluate, render_svg, render_text};
use crate::stats::MAX_TRIALS_LIMIT;
use crate::stats::SequentialKind;
use crate::stats::StatsError;

mod compare;

/// The one-sample rates (`--healthy`, `--regressed`); clap requires both without
/// `--compare`.
fn rates(args: &PlanArgs) -> Result<(f64, f64), Error> {
    match (args.healthy, args.regressed) {
        (Some(h), Some(r)) => Ok((h, r)),
        _ => Err(usage!(
            "`gate plan` needs `--healthy P0 --regressed P1` (or `--compare`)"
        )),
    }
}

/// Execute `gate plan`; returns the exit code.
pub fn execute(args: &PlanArgs) -> Result<u8, Error> {
    if args.compare {
        return compare::execute(args);
    }
    let (healthy, regressed) = rates(args)?;
    // `--healthy 0.9%` is 0.009: legal, and almost surely meant as 90%. Say what was read.
    for w in crate::units::flag_rate_warnings(Some(healthy), Some(regressed)) {
        eprintln!("{w}");
    }
    if let Some(nc) = &args.evaluate {
        return evaluate(args, nc);
    }
    let report = OneSampleReport::build(&OneSampleOptions {
        max_trials: args.max_trials,
        wald: args.rule == SequentialKind::Wald,
        on_inconclusive: args.on_inconclusive.into(),
        jobs: args.jobs,
        unavailable_rate: args.unavailable_rate,
        max_unavailable: args.max_unavailable,
        stage: args.stage,
        max_stages: args.max_stages,
        ..OneSampleOptions::new(healthy, regressed, args.alpha, args.beta)
    })
    .map_err(design_error)?;
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
        let svg = render_svg(&report).map_err(|e| Error::output("cannot draw the SVG chart", e))?;
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
        Format::Json => println!("{}", json(&report)?),
    }
    Ok(exit::SUCCESS)
}

/// A statistics error as a command-line error: the parameter becomes its flag.
pub(crate) fn flag_error(err: StatsError) -> Error {
    match err {
        StatsError::OutOfRange { name, range, value } => {
            usage!(
                "`--{}` must be {range}, got `{}`{}",
                name.replace('_', "-"),
                num(value),
                crate::units::percent_hint(name, value)
            )
        }
        StatsError::NotSeparated { healthy, regressed } => {
            usage!(
                "`--healthy` ({}) must be greater than `--regressed` ({})",
                num(healthy),
                num(regressed)
            )
        }
        StatsError::Unreachable {
            max_trials,
            to_pass,
            to_fail,
        } => usage!(
            "`--max-trials {max_trials}` is too small: the sequential test needs at least \
             {to_pass} trials to PASS and {to_fail} to FAIL"
        ),
        StatsError::BadLattice { .. }
        | StatsError::BadPairModel { .. }
        | StatsError::AcceptsAll { .. } => Error::Usage(err.to_string()),
        StatsError::NotWorse { base, regressed } => usage!(
            "`--regressed` ({}) must be below `--base` ({}): compare detects a head worse \
             than base",
            num(regressed),
            num(base)
        ),
        StatsError::NoSequential { max_trials, .. } => usage!(
            "no sequential rule with at most {max_trials} trials meets both risks: raise \
             `--max-trials`, widen the gap between the rates, or allow larger risks"
        ),
        StatsError::NoPlan { limit, alpha, beta } => usage!(
            "no single plan with at most {limit} trials tells these rates apart at alpha \
             `{}` and beta `{}`: widen the gap between `--healthy` and `--regressed`, \
             or allow larger risks",
            num(alpha),
            num(beta)
        ),
    }
}

/// Parse `N,C` as a single plan.
fn parse_nc(nc: &str) -> Result<(u64, u64), Error> {
    let bad = || usage!("`--evaluate` takes a single plan as `N,C` (e.g. `33,6`), got `{nc}`");
    let (n, c) = nc.split_once(',').ok_or_else(bad)?;
    let n: u64 = n.trim().parse().map_err(|_| bad())?;
    let c: u64 = c.trim().parse().map_err(|_| bad())?;
    // The one validation of a single plan, with the flag's name in front.
    crate::model::Sampling::Single { n, c }
        .rule()
        .map_err(|e| match e {
            StatsError::OutOfRange { range, value, .. } => {
                usage!("`--evaluate`: `n` must be {range}, got `{}`", num(value))
            }
            e => usage!("`--evaluate`: {e}"),
        })?;
    Ok((n, c))
}

/// `gate plan --evaluate N,C`.
fn evaluate(args: &PlanArgs, nc: &str) -> Result<u8, Error> {
    let (n, c) = parse_nc(nc)?;
    let (healthy, regressed) = rates(args)?;
    let report = EvaluateReport::build(
        n,
        c,
        &OneSampleOptions {
            on_inconclusive: args.on_inconclusive.into(),
            jobs: args.jobs,
            unavailable_rate: args.unavailable_rate,
            max_unavailable: args.max_unavailable,
            ..OneSampleOptions::new(healthy, regressed, args.alpha, args.beta)
        },
    )
    .map_err(design_error)?;
    match args.format {
        Format::Text => print!("{}", render_evaluate(&report)),
        Format::Json => println!("{}", json(&report)?),
    }
    Ok(exit::SUCCESS)
}

/// A design error in the words of `gate plan`'s flags.
fn design_error(err: DesignError) -> Error {
    match err {
        DesignError::Stats(e) => flag_error(e),
        DesignError::UnavailableRate(u) => usage!(
            "`--unavailable-rate` must be at least 0 and below 1, got `{}`",
            num(u)
        ),
        DesignError::StagedTooLong { max_trials, .. } => usage!(
            "`--max-stages` × `--stage` must be at most {MAX_TRIALS_LIMIT} trials, got `{max_trials}`"
        ),
        DesignError::NoStaged { stage, max_trials } => usage!(
            "no staged rule with stages of {stage} and at most {max_trials} trials meets \
             both risks: raise `--max-stages`, or use smaller stages"
        ),
    }
}

/// A report as the pretty JSON of its contract.
pub(crate) fn json(report: &impl serde::Serialize) -> Result<String, Error> {
    serde_json::to_string_pretty(report).map_err(|e| Error::output("cannot write the JSON", e))
}
