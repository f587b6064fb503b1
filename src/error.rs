//! Errors that reach `main`, and the exit codes they map to: [`Error::exit_code`] is the one
//! place an error kind becomes a code (the codes themselves are [`crate::exit`]).
//!
//! Every command returns [`Error`] when it cannot produce its normal outcome; `main` prints
//! it with its `caused by:` chain and exits with [`Error::exit_code`]. The mapping from the
//! kind of error to the code lives in that one function (the way cargo-nextest maps its
//! `ExpectedError` kinds), so an I/O failure can never drift into the wrong code because of
//! the path it took. CI systems branch on the codes: a FAIL (1) is a finding about the agent,
//! a usage error (2) is a finding about the command line or its input, a harness error (4)
//! means that no verdict was published.

use std::path::PathBuf;

use crate::exit;
use crate::ledger::LedgerError;
use crate::plan::PlanError;
use crate::report::error::ReportError;

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
            | Error::LedgerLocked { .. } => exit::USAGE,
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

/// A report destination refused or a report not written: the variant of the same name.
impl From<crate::publish::PublishError> for Error {
    fn from(e: crate::publish::PublishError) -> Self {
        use crate::publish::PublishError as P;
        match e {
            P::Usage(message) => Error::Usage(message),
            P::Input { context, source } => Error::Input { context, source },
            P::Output { context, source } => Error::Output { context, source },
            P::Harness(message) => Error::Harness(message),
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
