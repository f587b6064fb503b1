//! `gate`: acceptance sampling for CI gates on nondeterministic software.
//!
//! Data flow:
//!
//! ```text
//! plan.yaml ──parse+validate──▶ Plan ──▶ Sampler (single | sequential) ◀──┐
//!                                           │ "run trial k"                │ outcome, in ordinal order
//!                                           ▼                              │
//!                                        Runner (processes, timeouts, ────┘
//!                                        parallel jobs, result protocol)
//!                                           │ every attempt, as it ends
//!                                           ▼
//!                                        Ledger (append-only JSONL, rows synced)
//!                                           │
//!                                           ▼
//!                          Reports: terminal · JSON · JUnit · Markdown summary
//!                          (pure functions of the ledger: `gate report` recomputes them)
//! ```
//!
//! [`model`] holds the vocabulary every layer shares; [`error`] maps every error to its exit
//! code. [`stats`] is pure and knows nothing of processes; [`runner`] knows nothing of statistics;
//! [`sampler`] turns outcomes into decisions; [`report`] sees only [`ledger`] rows.
//! [`commands`] wires them together, one file per subcommand.

// The run engine uses Linux interfaces as Linux provides them (pidfd_open, flock, process
// groups): one clear stop on any other target rather than a half-working build. docs/ARCHITECTURE.md, "Platform".
#[cfg(not(target_os = "linux"))]
compile_error!(
    "gate supports Linux only (it needs pidfd_open and flock); \
     build it on Linux, or run it in a Linux container"
);

pub mod cli;
pub mod commands;
pub mod error;
pub mod explain;
pub mod format;
pub mod ingest;
pub mod input;
pub mod ledger;
pub mod model;
pub mod output;
pub mod plan;
pub mod progress;
pub mod publish;
pub mod report;
pub mod runner;
pub mod sampler;
pub mod stats;
pub mod units;
pub mod untrusted;

pub use error::{Error, exit};
