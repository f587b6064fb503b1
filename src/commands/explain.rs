//! `gate explain`: what a CI retry setting measures, in words and numbers.
//!
//! Glue only: the arithmetic lives in [`crate::explain`] and the text in
//! [`crate::report::explain`]; this file validates the flags and writes the explanation as
//! text or as the JSON contract documented in docs/statistics.md.

use crate::cli::{ExplainArgs, Format};
use crate::error::{Error, usage};
use crate::exit;
use crate::explain::{self, CompareWith, ExplainError};
use crate::report::explain::render_text;

use super::plan::{flag_error, json};

/// Execute `gate explain`; returns the exit code.
pub fn execute(args: &ExplainArgs) -> Result<u8, Error> {
    if !args.junit.is_empty() {
        return super::explain_junit::execute(args);
    }
    let Some(retries) = args.retries else {
        return Err(usage!("give `--retries R`, or `--junit RESULT...`"));
    };
    let compare = match (args.healthy, args.regressed) {
        (Some(healthy), Some(regressed)) => Some(CompareWith {
            healthy,
            regressed,
            alpha: args.alpha,
            beta: args.beta,
        }),
        // clap's `requires` makes the flags come as a pair; a lone one is still an error here
        // rather than a silent omission.
        (Some(_), None) => return Err(usage!("`--healthy` needs `--regressed` as well")),
        (None, Some(_)) => return Err(usage!("`--regressed` needs `--healthy` as well")),
        (None, None) => None,
    };
    let e = explain::explain(retries, compare).map_err(|err| match err {
        ExplainError::TooManyRetries { value, max } => {
            usage!("`--retries` must be between 0 and {max}, got `{value}`")
        }
        ExplainError::Stats(err) => flag_error(err),
    })?;
    match args.format {
        Format::Text => print!("{}", render_text(&e)),
        Format::Json => println!("{}", json(&e)?),
    }
    Ok(exit::SUCCESS)
}
