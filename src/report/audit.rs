//! `gate explain --junit`'s text: what the retry setting measured on a set of result files —
//! each test's first-attempt and final pass rates, the tests green only through a retry, and
//! what the tool's own summary claimed against the first attempts. Every figure is one
//! [`crate::ingest::audit`] computed.

use std::fmt::Write as _;

use crate::format::percent;
use crate::ingest::audit::Audit;

/// The audit as a table and a few sentences, safe to print: test names come from the
/// runner's file, which the code under test can write, so they cannot start a workflow
/// command or escape their line.
pub fn render_text(a: &Audit) -> String {
    crate::untrusted::log_text(&table_and_sentences(a))
}

fn table_and_sentences(a: &Audit) -> String {
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
