//! `gate`: acceptance sampling for CI gates on nondeterministic software.
//!
//! Data flow (docs/ARCHITECTURE.md has the long version):
//!
//! ```text
//! plan.yaml ──plan: parse+validate──▶ Plan ─┐   JUnit / eval files ──ingest: first attempts──┐
//!                                           ▼                                                │
//!   rule: each task's sampling spec, validated once, as the lattice that decides it          │
//!                                           ▼                                                │
//!   sampler::OrderedSampler (pair_sampler::… for compare) ◀── outcomes, in ordinal order ◀───┤
//!        │ "decided: cancel the rest"       ▲                                                │
//!        ▼                                  │                                                │
//!   runner: scheduler / pairs (lanes) → attempt (process group, sandbox, timeouts, result)   │
//!        │ events::RunEvent: every attempt as it ends, every decision                        │
//!        ├──▶ progress (display only)                                                        │
//!        ▼                                                                                   │
//!   ledger: append-only JSONL, hash-chained, rows synced ◀───────────────────────────────────┘
//!        │ rows, read back (`gate run`) or from files (`gate report`, `gate verify`)
//!        ▼
//!   report::replay (the same samplers and rule; stages merged) ──▶ Report ──▶ terminal ·
//!                                          JSON · JUnit · Markdown · annotations (publish)
//!
//!   stats (pure) ──▶ design: `gate plan`'s reports ──▶ report::design (text, curve, SVG)
//! ```
//!
//! [`model`] holds the vocabulary every layer shares; [`exit`] defines the exit codes and maps
//! every verdict and signal to one, [`error`] every error. [`stats`] is pure and knows nothing
//! of processes; [`runner`] knows nothing of statistics (its [`runner::run_plan`] runs each
//! task of a plan by its kind); [`rule`] is the one place a sampling rule lives (its
//! validation, its lattice, its decisions); [`sampler`] and [`pair_sampler`] feed it outcomes
//! in order; [`ingest`] turns other tools' test results into the same outcomes, which
//! [`judge`] decides into ledger rows as `gate run` would; [`report`] sees only [`ledger`]
//! rows; [`design`] computes what `gate plan` publishes; [`publish`] checks and writes every
//! report path. [`commands`] wires them together, one file per subcommand, and is (with
//! [`cli`]) the only place a clap type is seen, but for the `ValueEnum` derive of
//! `init::ProjectKind` (clap lists its values from it).

// The run engine uses Linux interfaces as Linux provides them (pidfd_open, flock, process
// groups): one clear stop on any other target rather than a half-working build. docs/ARCHITECTURE.md, "Platform".
#[cfg(not(target_os = "linux"))]
compile_error!(
    "gate supports Linux only (it needs pidfd_open and flock); \
     build it on Linux, or run it in a Linux container"
);

pub mod cli;
pub mod commands;
pub mod design;
pub mod error;
pub mod exit;
pub mod explain;
pub mod format;
pub mod ingest;
pub mod init;
pub mod input;
pub mod judge;
pub mod ledger;
pub mod model;
pub mod output;
pub mod pair_sampler;
pub mod plan;
pub mod progress;
pub mod publish;
pub mod report;
pub mod rule;
pub mod runner;
pub mod sampler;
pub mod stats;
pub mod suggest;
pub mod units;
pub mod untrusted;

pub use error::Error;
