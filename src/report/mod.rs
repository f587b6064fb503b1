//! Reports from the ledger: a pure function of ledger rows, never of live state, so `gate run`
//! and `gate report` print the same thing and a published score can be recomputed by anyone
//! holding the ledger (invariant 4).
//!
//! The layers, each importing only those below it:
//!
//! 1. [`error`]: [`ReportError`], a leaf the crate's [`crate::error`] maps to an exit code.
//! 2. [`replay`]: recompute each task's verdict and counts from the attempt rows (also merges
//!    shards, de-duplicates rows, and replays a `compare` task's pairs).
//! 3. [`stages`]: a staged run's stages — complete, decided, or CONTINUE with the next;
//!    [`compare_task`]: what the reports show of a compare task.
//! 4. [`model`]: the [`Report`] — every figure any report prints, computed once.
//! 5. [`words`]: how the renderers say a verdict, a reason, a figure, a stage; [`listing`]:
//!    which tasks a human-facing report lists (a large suite's passing cases are counted).
//! 6. [`terminal`], [`json`], [`junit`], [`markdown`], [`annotations`]: one renderer each; they
//!    read the model and [`words`], never each other, and the model knows none of them.
//!
//! [`verify`] is `gate verify`'s audit of a ledger against its own replay; [`design`] renders
//! `gate plan`'s design, [`check`] `gate check`'s resolved rules, [`explain`] `gate explain`'s
//! arithmetic and [`audit`] what `gate explain --junit` found in result files. [`emit`] writes the files a run or `gate report`
//! was asked for.

pub mod annotations;
pub mod audit;
pub mod check;
pub mod compare_task;
pub mod design;
pub mod error;
pub mod explain;
pub mod json;
pub mod junit;
pub mod listing;
pub mod markdown;
pub mod model;
pub mod replay;
pub mod stages;
pub mod terminal;
pub mod verify;
pub mod words;

#[cfg(test)]
pub(crate) mod fixture;

use std::io::Write;

use crate::publish::{Kind, Outputs, PublishError};

pub use error::{ReportError, Source};
pub use model::Report;

/// Write the report files asked for: `--junit`, `--summary` (and append the Markdown to
/// `$GITHUB_STEP_SUMMARY` unless `--no-step-summary`), `--json`; and print GitHub annotations
/// to stdout when `GITHUB_ACTIONS=true`. Warnings go to stderr.
pub fn emit(report: &Report, outputs: &Outputs) -> Result<(), PublishError> {
    emit_to(report, outputs, &mut std::io::stdout().lock(), &|w| {
        let _ = writeln!(std::io::stderr(), "{w}");
    })
}

/// [`emit`] with the annotations' destination and the warning printer given.
///
/// Every destination is checked again before any is written ([`Outputs::recheck`]): a run
/// whose report paths were tampered with publishes none of them (exit 4). A report file
/// that cannot be written is an error too (exit 4: the verdict was not published as asked).
/// The step summary is the CI's page, not a file the user asked for: failing to append to
/// it for an ordinary reason (no folder, no permission) is a warning and changes no exit
/// code. Annotations on a closed stdout are dropped quietly, like the rest of the output.
pub fn emit_to(
    report: &Report,
    outputs: &Outputs,
    out: &mut dyn Write,
    warn: &dyn Fn(&str),
) -> Result<(), PublishError> {
    let github_actions = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    outputs.recheck()?;
    if outputs.wants(Kind::Junit) {
        // Written as it is serialised: the XML of a large suite is never whole in memory.
        // Its texts are redacted one by one as quick-junit will write them.
        let scrub = |s: &str| outputs.scrubbed(s).into_owned();
        let scrub: Option<&dyn Fn(&str) -> String> = outputs.scrubs().then_some(&scrub);
        let render = |w: &mut dyn Write| junit::render_to(report, w, scrub);
        if outputs.on_stdout(Kind::Junit) {
            render(&mut std::io::BufWriter::new(&mut *out))
                .map_err(|e| PublishError::output("cannot write the report to stdout", e))?;
        } else {
            outputs.write_with(Kind::Junit, &render)?;
        }
    }
    let mut write = |kind: Kind, text: &str| {
        if outputs.on_stdout(kind) {
            out.write_all(text.as_bytes())
                .map_err(|e| PublishError::output("cannot write the report to stdout", e))
        } else {
            outputs.write(kind, text)
        }
    };
    if outputs.wants(Kind::Summary) || outputs.wants_step_summary() {
        let md = outputs.scrubbed(&markdown::render(report)).into_owned();
        if outputs.wants(Kind::Summary) {
            write(Kind::Summary, &md)?;
        }
        if outputs.wants_step_summary() {
            // GitHub drops a step summary above 1 MiB whole: cap it, pointing at the full
            // file when one was written.
            let full = outputs.path(Kind::Summary).map(|p| p.display().to_string());
            let capped = if md.len() <= markdown::STEP_SUMMARY_LIMIT {
                std::borrow::Cow::Borrowed(&md)
            } else {
                std::borrow::Cow::Owned(
                    outputs
                        .scrubbed(&markdown::render_capped(
                            report,
                            markdown::STEP_SUMMARY_LIMIT,
                            full.as_deref(),
                        ))
                        .into_owned(),
                )
            };
            if let Some(w) = outputs.append_step_summary(&capped)? {
                warn(&w);
            }
        }
    }
    if outputs.wants(Kind::Json) {
        let json = json::render(report)
            .map_err(|e| PublishError::output("cannot render the JSON report", e))?;
        write(Kind::Json, &outputs.scrubbed(&json))?;
    }
    // A report on stdout (`--json -`) owns stdout: annotations then go with the other
    // diagnostics to stderr, which the Actions runner reads for workflow commands too.
    if github_actions && outputs.to_stdout() {
        for line in annotations::render(report) {
            warn(&outputs.scrubbed(&line));
        }
    } else if github_actions {
        for line in annotations::render(report) {
            if writeln!(out, "{}", outputs.scrubbed(&line)).is_err() {
                break;
            }
        }
    }
    Ok(())
}
