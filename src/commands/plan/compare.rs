//! `gate plan --compare`: the flags become [`CompareOptions`]; [`crate::design::compare`]
//! designs the paired head-against-base rule and computes its figures, and
//! [`crate::report::design::compare`] renders them (or serde writes the JSON contract of
//! docs/statistics.md). This file words the design's errors in the flags' names.

use super::{flag_error, json};
use crate::cli::{Format, PlanArgs};
use crate::design::{CompareOptions, CompareReport};
use crate::error::{Error, usage};
use crate::exit;
use crate::report::design::compare::render_text;
use crate::stats::StatsError;
use crate::stats::compare::{CompareSpec, Effect};

/// Execute `gate plan --compare`; returns the exit code.
pub fn execute(args: &PlanArgs) -> Result<u8, Error> {
    let effect = match (args.odds_ratio, args.base, args.regressed) {
        (Some(r), None, None) => Effect::OddsRatio(r),
        (None, Some(base), Some(regressed)) => Effect::Rates { base, regressed },
        (None, None, Some(_)) => {
            return Err(usage!(
                "`--compare --regressed H` needs `--base B`: the regressed rate of head is \
                 relative to base's rate (or give `--odds-ratio R`)"
            ));
        }
        _ => {
            return Err(usage!(
                "`--compare` needs the regression to detect: `--odds-ratio R` (R > 1), or \
                 `--base B --regressed H` (H < B)"
            ));
        }
    };
    let at = args
        .at
        .iter()
        .map(|s| parse_at(s))
        .collect::<Result<Vec<_>, Error>>()?;
    let report = CompareReport::build(&CompareOptions {
        spec: CompareSpec {
            alpha: args.alpha,
            beta: args.beta,
            max_pairs: args.max_pairs,
            rule: args.rule,
            drop: args.drop,
            ..CompareSpec::new(effect)
        },
        at,
    })
    .map_err(compare_error)?;
    match args.format {
        Format::Text => print!("{}", render_text(&report)),
        Format::Json => println!("{}", json(&report)?),
    }
    Ok(exit::SUCCESS)
}

/// Parse `BASE,HEAD` (each `0.9` or `90%`, in [0, 1]).
fn parse_at(s: &str) -> Result<(f64, f64), Error> {
    let bad = |why: &str| {
        usage!("`--at` takes two pass rates as `BASE,HEAD` (e.g. `0.9,0.8`){why}, got `{s}`")
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
fn compare_error(err: StatsError) -> Error {
    match err {
        StatsError::NoSequential { max_trials, .. } => usage!(
            "no sequential rule with at most {max_trials} discordant pairs meets both risks: \
             raise `--max-pairs`, detect a larger odds ratio, or allow larger risks"
        ),
        StatsError::NoPlan { .. } => usage!(
            "this odds ratio is too close to 1 to detect at these risks within the design \
             limit: detect a larger `--odds-ratio` (or a lower `--regressed`), or allow larger \
             risks"
        ),
        StatsError::Unreachable {
            max_trials,
            to_pass,
            to_fail,
        } => usage!(
            "`--max-pairs` allows at most {max_trials} discordant pairs, but Wald's rule needs \
             at least {to_pass} to PASS and {to_fail} to FAIL: raise `--max-pairs`"
        ),
        other => flag_error(other),
    }
}
