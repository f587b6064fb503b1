//! `gate explain --junit RESULT...`: what the retry setting measured on these result files
//! (JUnit, or any format `gate ingest` reads), and what an eval's reducer reported against
//! the first attempts.
//!
//! Glue: read the files with [`crate::ingest`], audit them with [`crate::ingest::audit`],
//! and print the audit as [`crate::report::audit`]'s text or as the JSON contract
//! (`--format json`).

use crate::cli::{ExplainArgs, Format};
use crate::error::Error;
use crate::exit;
use crate::ingest::audit::audit;
use crate::ingest::{self, Options};
use crate::report::audit::render_text;

/// Execute `gate explain --junit`; returns the exit code.
pub fn execute(args: &ExplainArgs) -> Result<u8, Error> {
    let opts = Options {
        assume_retries_off: args.assume_retries_off,
        scorer: args.scorer.clone(),
        allow_incomplete: args.allow_incomplete,
        ..Options::default()
    };
    // Test ids and messages come from the files: redacted as they are read.
    let redactor = crate::runner::redact::Redactor::of_process_env(Vec::new());
    let redact = |s: &str| redactor.apply(s);
    // A refusal quotes the file as written: redacted like its records (review 47, c04).
    let runs = ingest::read_runs(&args.junit, &opts, &redact).map_err(|e| e.redact(&redact))?;
    let a = audit(&runs);
    let text = match args.format {
        Format::Text => render_text(&a),
        Format::Json => format!(
            "{}\n",
            serde_json::to_string_pretty(&a)
                .map_err(|e| Error::output("cannot render the audit as JSON", e))?
        ),
    };
    // A closed stdout (`… | head`) ends the printing, not with a panic.
    let _ = std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes());
    Ok(exit::SUCCESS)
}
