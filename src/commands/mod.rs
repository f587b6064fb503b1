//! One module per subcommand: each turns its parsed arguments into library calls and returns
//! the exit code. Errors propagate to `main`, which prints them and maps them to a code.

pub mod check;
pub mod completions;
pub mod explain;
pub mod explain_junit;
pub mod ingest;
pub mod init;
pub mod init_evals;
pub mod man;
pub mod plan;
pub mod report;
pub mod run;
pub mod schema;
pub mod suite;
pub mod verify;

impl From<crate::cli::InconclusivePolicy> for crate::ledger::OnInconclusive {
    fn from(p: crate::cli::InconclusivePolicy) -> Self {
        match p {
            crate::cli::InconclusivePolicy::Fail => crate::ledger::OnInconclusive::Fail,
            crate::cli::InconclusivePolicy::Pass => crate::ledger::OnInconclusive::Pass,
        }
    }
}
