//! Reports from the ledger: a pure function of ledger rows, never of live state, so `gate run`
//! and `gate report` print the same thing and a published score can be recomputed by anyone
//! holding the ledger (invariant 4).
//!
//! - [`replay`]: recompute each task's verdict and counts from the attempt rows (also merges
//!   shards and de-duplicates rows).
//! - [`model`]: the [`Report`] — every figure any report prints, computed once.
//! - [`terminal`], [`json`], [`junit`], [`markdown`], [`annotations`]: one renderer each.
//! - [`verify`]: `gate verify`'s audit of a ledger against its own replay.
//! - [`error`]: [`ReportError`], a leaf the crate's [`crate::error`] maps to an exit code.
//!
//! The renderers read the model and its shared words (`model.rs`: `fail_why`,
//! `fault_risk_text`, …), never each other; the model knows none of them.
//!
//! [`emit`] writes the files a run or `gate report` was asked for.

pub mod annotations;
pub mod compare;
pub mod error;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod model;
pub mod replay;
pub mod terminal;
pub mod verify;

#[cfg(test)]
pub(crate) mod fixture;

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::cli::ReportFiles;
use crate::error::Error;

pub use error::{ReportError, Source};
pub use model::Report;

/// The exit code of a verdict: [`crate::error::exit::for_verdict`], under the name `gate ingest` still
/// calls it by (the one mapping lives in `error.rs`).
pub use crate::error::exit::for_verdict as exit_code_for;

/// Write the report files asked for: `--junit`, `--summary` (and append the Markdown to
/// `$GITHUB_STEP_SUMMARY` unless `--no-step-summary`), `--json`; and print GitHub annotations
/// to stdout when `GITHUB_ACTIONS=true`. Warnings go to stderr.
pub fn emit(report: &Report, files: &ReportFiles) -> Result<(), Error> {
    emit_to(report, files, &mut std::io::stdout().lock(), &|w| {
        let _ = writeln!(std::io::stderr(), "{w}");
    })
}

/// [`emit`] with the annotations' destination and the warning printer given.
pub fn emit_to(
    report: &Report,
    files: &ReportFiles,
    out: &mut dyn Write,
    warn: &dyn Fn(&str),
) -> Result<(), Error> {
    let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    emit_with(
        report,
        files,
        env("GITHUB_STEP_SUMMARY").map(PathBuf::from).as_deref(),
        std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true"),
        out,
        warn,
    )
}

/// [`emit`] with its environment made explicit (for tests).
///
/// A report file that cannot be written is an error (exit 4: the verdict was not published
/// as asked). The step summary is the CI's page, not a file the user asked for: failing to
/// append to it is a warning and changes no exit code. Annotations on a closed stdout are
/// dropped quietly, like the rest of the printed output.
pub fn emit_with(
    report: &Report,
    files: &ReportFiles,
    step_summary: Option<&Path>,
    github_actions: bool,
    out: &mut dyn Write,
    warn: &dyn Fn(&str),
) -> Result<(), Error> {
    // A report on stdout (`--json -`) owns stdout: annotations then go with the other
    // diagnostics to stderr, which the Actions runner reads for workflow commands too.
    let report_on_stdout = crate::output::report_to_stdout(files)?;
    let mut write_file = |path: &Path, text: &str| {
        if crate::output::is_stdout(path) {
            out.write_all(text.as_bytes())
                .map_err(|e| Error::output("cannot write the report to stdout", e))
        } else {
            write_file(path, text)
        }
    };
    if let Some(path) = &files.junit {
        let xml = junit::render(report)
            .map_err(|e| Error::output("cannot render the JUnit report", e))?;
        write_file(path, &xml)?;
    }
    if files.summary.is_some() || (step_summary.is_some() && !files.no_step_summary) {
        let md = markdown::render(report);
        if let Some(path) = &files.summary {
            write_file(path, &md)?;
        }
        if let Some(path) = step_summary.filter(|_| !files.no_step_summary) {
            // GitHub drops a step summary above 1 MiB whole: cap it, pointing at the full
            // file when one was written.
            let full = files
                .summary
                .as_deref()
                .filter(|p| !crate::output::is_stdout(p))
                .map(|p| p.display().to_string());
            let capped = if md.len() <= markdown::STEP_SUMMARY_LIMIT {
                std::borrow::Cow::Borrowed(&md)
            } else {
                std::borrow::Cow::Owned(markdown::render_capped(
                    report,
                    markdown::STEP_SUMMARY_LIMIT,
                    full.as_deref(),
                ))
            };
            let appended = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .and_then(|mut f| f.write_all(capped.as_bytes()));
            if let Err(e) = appended {
                warn(&format!(
                    "warning: cannot append the summary to `{}` (GITHUB_STEP_SUMMARY): {e}",
                    path.display()
                ));
            }
        }
    }
    if let Some(path) = &files.json {
        let json =
            json::render(report).map_err(|e| Error::output("cannot render the JSON report", e))?;
        write_file(path, &json)?;
    }
    if github_actions && report_on_stdout {
        for line in annotations::render(report) {
            warn(&line);
        }
    } else if github_actions {
        for line in annotations::render(report) {
            if writeln!(out, "{line}").is_err() {
                break;
            }
        }
    }
    Ok(())
}

fn write_file(path: &Path, text: &str) -> Result<(), Error> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::output(format!("cannot create `{}`", dir.display()), e))?;
    }
    std::fs::write(path, text)
        .map_err(|e| Error::output(format!("cannot write `{}`", path.display()), e))
}
