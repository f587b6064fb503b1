//! `gate explain --junit RESULT...`: what the retry setting measured on these result files
//! (JUnit, or any format `gate ingest` reads), and what an eval's reducer reported against
//! the first attempts.
//!
//! Glue: read the files with [`crate::ingest`], audit them with [`crate::ingest::audit`],
//! render the audit as a table (text) or as the JSON contract (`--format json`).

use std::fmt::Write as _;

use crate::cli::{ExplainArgs, Format};
use crate::error::Error;
use crate::exit;
use crate::ingest::audit::{Audit, audit};
use crate::ingest::{self, Options};

use super::plan::percent;

/// Execute `gate explain --junit`; returns the exit code.
pub fn execute(args: &ExplainArgs) -> Result<u8, Error> {
    let opts = Options {
        assume_retries_off: args.assume_retries_off,
        scorer: args.scorer.clone(),
        allow_incomplete: args.allow_incomplete,
        ..Options::default()
    };
    let mut runs = Vec::with_capacity(args.junit.len());
    for path in &args.junit {
        runs.push(ingest::read_run(path, &opts)?);
    }
    let a = audit(&runs);
    let text = match args.format {
        // Test names come from the runner's file, which the code under test can write: they
        // must not start a workflow command or escape their line.
        Format::Text => crate::untrusted::log_text(&render_text(&a)),
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

/// The audit as a table and a few sentences.
pub fn render_text(a: &Audit) -> String {
    let mut out = String::new();
    let s = &a.suite;
    let runs_word = |n: u64| if n == 1 { "run" } else { "runs" };
    // `write!` into a String cannot fail; the results are ignored on purpose.
    let _ = writeln!(
        out,
        "{} {} of the suite in {} file{}; the most attempts any test spent in one run: {} (retries = {} at least).\n",
        s.runs,
        runs_word(s.runs),
        a.files,
        if a.files == 1 { "" } else { "s" },
        a.k,
        a.retries_observed
    );
    let id_width = a
        .tests
        .iter()
        .map(|t| t.id.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let _ = writeln!(
        out,
        "{:<id_width$}  {:>4}  {:>13}  {:>13}  {:>8}  {:>13}",
        "test", "runs", "first attempt", "final", "attempts", "green by retry"
    );
    for t in &a.tests {
        let _ = writeln!(
            out,
            "{:<id_width$}  {:>4}  {:>13}  {:>13}  {:>8}  {:>13}",
            t.id,
            t.runs,
            format!(
                "{} ({})",
                t.first_attempt_passed,
                percent(t.first_attempt_rate)
            ),
            format!("{} ({})", t.final_passed, percent(t.final_rate)),
            t.attempts,
            t.green_only_through_retries
        );
    }
    let hidden: Vec<&str> = a
        .tests
        .iter()
        .filter(|t| t.green_only_through_retries > 0)
        .map(|t| t.id.as_str())
        .collect();
    let _ = writeln!(out);
    if hidden.is_empty() {
        let _ = writeln!(out, "No test was green only through a retry.");
    } else {
        let _ = writeln!(
            out,
            "Green only through retries in some runs: {}.",
            hidden.join(", ")
        );
        for t in a.tests.iter().filter(|t| t.green_only_through_retries > 0) {
            let _ = writeln!(
                out,
                "  {}: {} of {} runs green ({}), but {} of {} first attempts passed ({}){}",
                t.id,
                t.final_passed,
                t.runs,
                percent(t.final_rate),
                t.first_attempt_passed,
                t.runs,
                percent(t.first_attempt_rate),
                t.pass_at_k
                    .filter(|_| a.k > 1)
                    .map(|p| format!(
                        "; behind {} attempts that rate shows as pass@{} = {}",
                        a.k,
                        a.k,
                        percent(p)
                    ))
                    .unwrap_or_default()
            );
        }
    }
    if !a.claims.is_empty() {
        let _ = writeln!(
            out,
            "\nWhat the tool's summary reported, against the first attempts (gate grades the first attempts):"
        );
        for c in &a.claims {
            let _ = writeln!(
                out,
                "  {} for {}; its first attempts pass {} of {}",
                c.says, c.id, c.first_attempt_passed, c.runs
            );
        }
    }
    let _ = writeln!(
        out,
        "\nSuite: every test passed its first attempt in {} of {} {} ({}); the retries showed {} of {} green ({}).",
        s.first_attempt_green,
        s.runs,
        runs_word(s.runs),
        percent(ratio(s.first_attempt_green, s.runs)),
        s.final_green,
        s.runs,
        percent(ratio(s.final_green, s.runs))
    );
    out
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        f64::NAN
    } else {
        a as f64 / b as f64
    }
}
