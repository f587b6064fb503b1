//! Errors that reach `main`, and the exit codes they map to — defined once, here.
//!
//! Every command returns [`Error`] when it cannot produce its normal outcome; `main` prints
//! it with its `caused by:` chain and exits with [`Error::exit_code`]. The mapping from the
//! kind of error to the code lives in that one function (the way cargo-nextest maps its
//! `ExpectedError` kinds), so an I/O failure can never drift into the wrong code because of
//! the path it took. CI systems branch on the codes: a FAIL (1) is a finding about the agent,
//! a usage error (2) is a finding about the command line or its input, a harness error (4)
//! means that no verdict was published.

use std::path::PathBuf;

use crate::ledger::LedgerError;
use crate::plan::PlanError;
use crate::report::error::ReportError;

/// Exit codes of the `gate` binary.
pub mod exit {
    /// PASS, or a command that succeeded (`plan`, `explain`, `verify` of a sound ledger).
    pub const SUCCESS: u8 = 0;
    /// FAIL: at least one task's verdict is FAIL (or a ledger failed `gate verify`).
    pub const FAIL: u8 = 1;
    /// Usage error or invalid input: bad flags, a malformed or impossible plan, an unreadable
    /// ledger, a ledger another run holds.
    pub const USAGE: u8 = 2;
    /// INCONCLUSIVE: no task failed, but at least one could not be decided
    /// (0 instead under `on_inconclusive: pass`).
    pub const INCONCLUSIVE: u8 = 3;
    /// Harness error: a task could not be run at all (exit 126/127, a missing `check`, a
    /// broken result file), or gate could not keep its own record (the ledger or a report
    /// could not be written, or the ledger was changed behind its back). No verdict is
    /// published.
    pub const HARNESS: u8 = 4;
    /// CONTINUE: the ledgers are the complete stages so far of a staged run whose rule has
    /// not decided; run the next stage (`gate report` names it). Not a verdict.
    pub const CONTINUE: u8 = 5;
    /// Interrupted by SIGINT (Ctrl-C); the ledger is closed with an INCONCLUSIVE footer.
    pub const INTERRUPTED: u8 = 130;
    /// Interrupted by SIGTERM; the ledger is closed as for SIGINT.
    pub const TERMINATED: u8 = 143;

    /// The exit code of a task's or a gate's verdict: 0 PASS, 1 FAIL, 3 INCONCLUSIVE (0 under
    /// `on_inconclusive: pass`), 4 for no verdict (a harness error). The one place verdicts
    /// become codes.
    pub fn for_verdict(
        verdict: crate::model::Judgement,
        on_inconclusive: crate::model::OnInconclusive,
    ) -> u8 {
        use crate::model::{Judgement, OnInconclusive, Verdict};
        match verdict {
            Judgement::HarnessError => HARNESS,
            Judgement::Verdict(Verdict::Pass) => SUCCESS,
            Judgement::Verdict(Verdict::Fail) => FAIL,
            Judgement::Verdict(Verdict::Inconclusive) => match on_inconclusive {
                OnInconclusive::Fail => INCONCLUSIVE,
                OnInconclusive::Pass => SUCCESS,
            },
        }
    }

    /// The exit code a finished run publishes (and its footer records): its verdict's, except
    /// that one shard of a sharded run publishes no verdict of its own and exits 0 unless its
    /// own trials already make a FAIL certain (`gate report` over every shard decides). Used
    /// by `gate run` and by `gate verify`'s check of the footer, so the two cannot drift.
    pub fn for_run(
        verdict: crate::model::Judgement,
        on_inconclusive: crate::model::OnInconclusive,
        sharded: bool,
    ) -> u8 {
        use crate::model::{Judgement, Verdict};
        match verdict {
            Judgement::Verdict(v) if sharded && v != Verdict::Fail => SUCCESS,
            _ => for_verdict(verdict, on_inconclusive),
        }
    }

    /// The exit code of a run stopped by a signal: 143 for SIGTERM, 130 for SIGINT (the
    /// shell's 128 + signal number). Those are the only signals gate handles; any other
    /// reads as an interrupt.
    pub fn for_signal(signal: libc::c_int) -> u8 {
        if signal == libc::SIGTERM {
            TERMINATED
        } else {
            INTERRUPTED
        }
    }

    /// The exit-code table as printed at the end of `gate --help`.
    pub const HELP_TABLE: &str = "\
Exit codes:
  0    PASS (or success for plan, explain, verify)
  1    FAIL (or a ledger that fails verify)
  2    usage error or invalid input (plan file, flags, ledger)
  3    INCONCLUSIVE (0 under `on_inconclusive: pass`)
  4    harness error: a task could not run, or gate could not keep its record; no verdict
  5    CONTINUE: a staged run is undecided after its stages so far; run the next stage
  130  interrupted (SIGINT); 143 on SIGTERM";
}

/// An [`Error::Usage`] with a `format!` message: how a command words a refused flag.
macro_rules! usage {
    ($($arg:tt)*) => {
        $crate::error::Error::Usage(format!($($arg)*))
    };
}
pub(crate) use usage;

/// A boxed cause, for errors whose source is not one of gate's own types.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Everything that can stop a command before its normal outcome.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag or argument that cannot be used (exit 2).
    #[error("{0}")]
    Usage(String),
    /// An input (a flag's value, a file named on the command line) that cannot be used, with
    /// the reason from below (exit 2).
    #[error("{context}")]
    Input {
        /// What was being done, naming the input.
        context: String,
        /// Why it failed.
        #[source]
        source: Cause,
    },
    /// The plan file does not load (exit 2).
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// A ledger given as input does not read (exit 2).
    #[error(transparent)]
    Ledger(#[from] LedgerError),
    /// Ledgers that no report can be made from (exit 2).
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Statistics refused a plan's or a flag's values (exit 2).
    #[error(transparent)]
    Stats(#[from] crate::stats::StatsError),
    /// A result file `gate ingest` cannot read as first attempts (exit 2).
    #[error(transparent)]
    Ingest(#[from] crate::ingest::IngestError),
    /// Another `gate run` holds the ledger (exit 2).
    #[error(
        "`{}`: the ledger is in use by another gate run (pid {pid}); wait for it to end, or use another `--ledger`",
        path.display()
    )]
    LedgerLocked {
        /// The ledger.
        path: PathBuf,
        /// The process holding the lock, as recorded in the lock file (`?` if unknown).
        pid: String,
    },
    /// Gate could not write what it must keep (the ledger, a report) while running (exit 4).
    #[error("{context}")]
    Output {
        /// What was being written.
        context: String,
        /// Why it failed.
        #[source]
        source: Cause,
    },
    /// The ledger file no longer holds the rows this run wrote (exit 4).
    #[error(
        "`{}`: the ledger on disk no longer matches the rows this run wrote ({what}); no verdict is published",
        path.display()
    )]
    LedgerChanged {
        /// The ledger.
        path: PathBuf,
        /// What differs.
        what: String,
    },
    /// The run cannot continue and no verdict can be published (exit 4).
    #[error("{0}")]
    Harness(String),
    /// A flag refused by `gate init`'s own edge code, which still words its messages with
    /// `anyhow` (exit 2); every other command returns the variants above.
    #[error(transparent)]
    Flag(#[from] anyhow::Error),
    /// Context around another error, keeping its exit code.
    #[error("{context}")]
    Context {
        /// What was being done.
        context: String,
        /// The error underneath, whose exit code this one keeps.
        #[source]
        source: Box<Error>,
    },
}

impl Error {
    /// The exit code for this error: the one place where error kinds become codes.
    pub fn exit_code(&self) -> u8 {
        match self {
            Error::Usage(_)
            | Error::Input { .. }
            | Error::Plan(_)
            | Error::Ledger(_)
            | Error::Report(_)
            | Error::Ingest(_)
            | Error::Stats(_)
            | Error::LedgerLocked { .. }
            | Error::Flag(_) => exit::USAGE,
            Error::Output { .. } | Error::LedgerChanged { .. } | Error::Harness(_) => exit::HARNESS,
            Error::Context { source, .. } => source.exit_code(),
        }
    }

    /// An [`Error::Input`] from any error.
    pub fn input(context: impl Into<String>, source: impl Into<Cause>) -> Self {
        Error::Input {
            context: context.into(),
            source: source.into(),
        }
    }

    /// An [`Error::Output`] from any error.
    pub fn output(context: impl Into<String>, source: impl Into<Cause>) -> Self {
        Error::Output {
            context: context.into(),
            source: source.into(),
        }
    }
}

/// `.context(…)` for results whose error converts into [`Error`]: adds a line to the
/// `caused by:` chain without changing the exit code.
pub trait Context<T> {
    /// Wrap the error with what was being done.
    fn context(self, context: impl Into<String>) -> Result<T, Error>;
    /// [`Context::context`] with a lazily built message.
    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T, Error>;
}

impl<T, E: Into<Error>> Context<T> for Result<T, E> {
    fn context(self, context: impl Into<String>) -> Result<T, Error> {
        self.map_err(|e| Error::Context {
            context: context.into(),
            source: Box::new(e.into()),
        })
    }

    fn with_context<S: Into<String>>(self, f: impl FnOnce() -> S) -> Result<T, Error> {
        self.map_err(|e| Error::Context {
            context: f().into(),
            source: Box::new(e.into()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signals_map_to_128_plus_their_number() {
        assert_eq!(exit::for_signal(libc::SIGINT), exit::INTERRUPTED);
        assert_eq!(exit::for_signal(libc::SIGTERM), exit::TERMINATED);
        assert_eq!(i32::from(exit::INTERRUPTED), 128 + libc::SIGINT);
        assert_eq!(i32::from(exit::TERMINATED), 128 + libc::SIGTERM);
    }

    #[test]
    fn verdicts_and_shards_map_to_the_documented_codes() {
        use crate::model::{Judgement as J, OnInconclusive as On, Verdict as V};
        let table = [
            (J::Verdict(V::Pass), On::Fail, false, exit::SUCCESS),
            (J::Verdict(V::Fail), On::Fail, false, exit::FAIL),
            (
                J::Verdict(V::Inconclusive),
                On::Fail,
                false,
                exit::INCONCLUSIVE,
            ),
            (J::Verdict(V::Inconclusive), On::Pass, false, exit::SUCCESS),
            (J::HarnessError, On::Pass, false, exit::HARNESS),
            (J::Verdict(V::Inconclusive), On::Fail, true, exit::SUCCESS),
            (J::Verdict(V::Pass), On::Fail, true, exit::SUCCESS),
            (J::Verdict(V::Fail), On::Pass, true, exit::FAIL),
            (J::HarnessError, On::Fail, true, exit::HARNESS),
        ];
        for (verdict, on, sharded, code) in table {
            assert_eq!(
                exit::for_run(verdict, on, sharded),
                code,
                "{verdict:?} {on:?} {sharded}"
            );
            if !sharded {
                assert_eq!(exit::for_verdict(verdict, on), code);
            }
        }
    }

    #[test]
    fn context_keeps_the_exit_code_of_what_it_wraps() {
        let harness: Result<(), Error> = Err(Error::Harness("boom".into()));
        let wrapped = harness.context("while running").unwrap_err();
        assert_eq!(wrapped.exit_code(), exit::HARNESS);
        let usage: Result<(), Error> = Err(Error::Usage("bad flag".into()));
        assert_eq!(usage.context("x").unwrap_err().exit_code(), exit::USAGE);
    }

    #[test]
    fn write_failures_are_harness_errors_and_locks_are_usage_errors() {
        let io = std::io::Error::other("disk full");
        assert_eq!(Error::output("cannot write", io).exit_code(), exit::HARNESS);
        let locked = Error::LedgerLocked {
            path: PathBuf::from("l.jsonl"),
            pid: "42".into(),
        };
        assert_eq!(locked.exit_code(), exit::USAGE);
        assert!(locked.to_string().contains("pid 42"));
    }
}
