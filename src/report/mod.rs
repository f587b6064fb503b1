//! Reports from the ledger: a pure function of ledger rows, never of live state, so `gate run`
//! and `gate report` print the same thing and a published score can be recomputed by anyone
//! holding the ledger (invariant 4).
//!
//! - [`replay`]: recompute each task's verdict and counts from the attempt rows (also merges
//!   shards and de-duplicates rows).
//! - [`model`]: the [`Report`] — every figure any report prints, computed once.
//! - [`terminal`], [`json`], [`junit`], [`markdown`], [`annotations`]: one renderer each.
//! - [`verify`]: `gate verify`'s audit of a ledger against its own replay.
//!
//! [`emit`] writes the files a run or `gate report` was asked for.

pub mod annotations;
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
use std::path::PathBuf;

use crate::error::{Error, exit};
use crate::ledger::OnInconclusive;
use crate::publish::{Kind, Outputs};
use crate::sampler::Verdict;

pub use model::Report;
pub use replay::Source;

/// Why ledgers could not be turned into a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// No ledger was given.
    #[error("no ledger given")]
    NoLedgers,
    /// Ledgers of different plans.
    #[error(
        "`{}` and `{}` are ledgers of different plans (plan hash `{first_hash}` vs `{other_hash}`); shards merge only within one plan",
        first.display(), other.display()
    )]
    MixedPlan {
        /// First ledger.
        first: PathBuf,
        /// Its plan hash.
        first_hash: String,
        /// The ledger that differs.
        other: PathBuf,
        /// Its plan hash.
        other_hash: String,
    },
    /// Ledgers of different fixtures.
    #[error(
        "`{}` and `{}` ran against different fixtures (fixture hash `{first_hash}` vs `{other_hash}`); shards merge only within one fixture set",
        first.display(), other.display()
    )]
    MixedFixture {
        /// First ledger.
        first: PathBuf,
        /// Its fixture hash.
        first_hash: String,
        /// The ledger that differs.
        other: PathBuf,
        /// Its fixture hash.
        other_hash: String,
    },
    /// Shards of different splits.
    #[error(
        "`{}` is a shard of {first_m} but `{}` is a shard of {other_m}",
        first.display(), other.display()
    )]
    MixedShards {
        /// First sharded ledger.
        first: PathBuf,
        /// Its shard count.
        first_m: u64,
        /// The ledger that differs.
        other: PathBuf,
        /// Its shard count.
        other_m: u64,
    },
    /// A whole run given together with a shard.
    #[error(
        "`{}` is a whole run but `{}` is shard {k}/{m}: give one run's ledger, or the ledgers of all shards of one run",
        whole.display(), shard_path.display()
    )]
    WholeAndShard {
        /// The unsharded ledger.
        whole: PathBuf,
        /// The sharded one.
        shard_path: PathBuf,
        /// Its shard.
        k: u64,
        /// Its shard count.
        m: u64,
    },
    /// Shards written in different CI runs, or different attempts of one (a shard re-run
    /// alone, as "Re-run failed jobs" does).
    #[error(
        "`{}` {first_ran} but `{}` {other_ran}: a shard re-run on its own (GitHub's \"Re-run failed jobs\") is a retry, and its merge would count only the attempt that passed; re-run all jobs of the workflow run and merge the ledgers of that one attempt (or give the ledgers of the first attempt of every shard)",
        first.display(), other.display()
    )]
    MixedCiRuns {
        /// First sharded ledger.
        first: PathBuf,
        /// Its shard and where it ran, in words: `(shard 1/3) ran in attempt 1 of CI run 7`.
        first_ran: String,
        /// The ledger that differs.
        other: PathBuf,
        /// Its shard and where it ran, in words.
        other_ran: String,
    },
    /// A header names an impossible shard.
    #[error("`{}`: shard `{k}/{m}` is not a shard (need 1 <= k <= m)", path.display())]
    BadShard {
        /// The ledger.
        path: PathBuf,
        /// k.
        k: u64,
        /// m.
        m: u64,
    },
    /// The same task resolved differently in two headers.
    #[error(
        "task `{task}` is resolved differently in `{}` and `{}` (sampling, rates or commands differ)",
        first.display(), other.display()
    )]
    MixedTask {
        /// The task.
        task: String,
        /// First ledger.
        first: PathBuf,
        /// The ledger that differs.
        other: PathBuf,
    },
    /// An attempt row for a task the header does not name.
    #[error("{at}: attempt row for task `{task}`, which no ledger header names")]
    UnknownTask {
        /// The task.
        task: String,
        /// The row.
        at: Source,
    },
    /// Trial or attempt 0.
    #[error("{at}: trial and attempt numbers start at 1")]
    ZeroOrdinal {
        /// The row.
        at: Source,
    },
    /// A ledger header records a task the plan loader would have refused.
    #[error("{at}: header row: task `{task}`: {what}")]
    BadHeader {
        /// The task.
        task: String,
        /// What is wrong.
        what: String,
        /// The header row.
        at: Source,
    },
    /// A shard ledger records an ordinal its shard does not own.
    #[error(
        "{at}: task `{task}` trial #{trial} does not belong to shard {k}/{m}, which runs ordinals {k}, {k} + {m}, {k} + 2×{m}, …"
    )]
    ForeignOrdinal {
        /// The task.
        task: String,
        /// The ordinal.
        trial: u64,
        /// The row.
        at: Source,
        /// The shard.
        k: u64,
        /// Shard count.
        m: u64,
    },
    /// An ordinal the runner cannot have reached in this ledger.
    #[error(
        "{at}: task `{task}` trial #{trial} cannot have been run: the runner assigns ordinals in order without skipping, and with {rows} attempt row{} of the task this ledger ends by trial #{limit}",
        if *rows == 1 { "" } else { "s" }
    )]
    ImpossibleOrdinal {
        /// The task.
        task: String,
        /// The ordinal.
        trial: u64,
        /// The row.
        at: Source,
        /// Attempt rows of the task in that ledger.
        rows: u64,
        /// The highest ordinal those rows (and the trials a crash may have lost) can reach.
        limit: u64,
    },
    /// Two different rows for one attempt.
    #[error(
        "task `{task}` trial #{trial} attempt {attempt} is recorded twice with different contents: {first} and {other}"
    )]
    Conflict {
        /// The task.
        task: String,
        /// Ordinal.
        trial: u64,
        /// Attempt.
        attempt: u32,
        /// The first row.
        first: Source,
        /// The row that differs.
        other: Source,
    },
    /// A recorded sampling rule the statistics refuse.
    #[error("task `{task}`: the recorded sampling rule is invalid")]
    Sampling {
        /// The task.
        task: String,
        /// Why.
        #[source]
        source: crate::stats::StatsError,
    },
}

/// The exit code of a verdict: 0 PASS, 1 FAIL, 3 INCONCLUSIVE (0 under
/// `on_inconclusive: pass`), 4 harness error (no verdict).
pub fn exit_code_for(verdict: Option<Verdict>, on_inconclusive: OnInconclusive) -> u8 {
    match verdict {
        None => exit::HARNESS,
        Some(Verdict::Pass) => exit::SUCCESS,
        Some(Verdict::Fail) => exit::FAIL,
        Some(Verdict::Inconclusive) => match on_inconclusive {
            OnInconclusive::Fail => exit::INCONCLUSIVE,
            OnInconclusive::Pass => exit::SUCCESS,
        },
    }
}

/// Write the report files asked for: `--junit`, `--summary` (and append the Markdown to
/// `$GITHUB_STEP_SUMMARY` unless `--no-step-summary`), `--json`; and print GitHub annotations
/// to stdout when `GITHUB_ACTIONS=true`. Warnings go to stderr.
pub fn emit(report: &Report, outputs: &Outputs) -> Result<(), Error> {
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
) -> Result<(), Error> {
    let github_actions = std::env::var("GITHUB_ACTIONS").is_ok_and(|v| v == "true");
    outputs.recheck()?;
    let mut write = |kind: Kind, text: &str| {
        if outputs.on_stdout(kind) {
            out.write_all(text.as_bytes())
                .map_err(|e| Error::output("cannot write the report to stdout", e))
        } else {
            outputs.write(kind, text)
        }
    };
    if outputs.wants(Kind::Junit) {
        let xml = junit::render(report)
            .map_err(|e| Error::output("cannot render the JUnit report", e))?;
        write(Kind::Junit, &xml)?;
    }
    if outputs.wants(Kind::Summary) || outputs.wants_step_summary() {
        let md = markdown::render(report);
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
                std::borrow::Cow::Owned(markdown::render_capped(
                    report,
                    markdown::STEP_SUMMARY_LIMIT,
                    full.as_deref(),
                ))
            };
            if let Some(w) = outputs.append_step_summary(&capped)? {
                warn(&w);
            }
        }
    }
    if outputs.wants(Kind::Json) {
        let json =
            json::render(report).map_err(|e| Error::output("cannot render the JSON report", e))?;
        write(Kind::Json, &json)?;
    }
    // A report on stdout (`--json -`) owns stdout: annotations then go with the other
    // diagnostics to stderr, which the Actions runner reads for workflow commands too.
    if github_actions && outputs.to_stdout() {
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
