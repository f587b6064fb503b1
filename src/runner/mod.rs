//! The run engine: everything between a validated plan and the ledger rows.
//!
//! The runner knows nothing about statistics; decisions are the sampler's.
//!
//! - [`dispatch`]: [`run_plan`], every task of a plan run by its kind (plain, suite,
//!   `compare:`, `compare:` suite), its events to the ledger and the display;
//!   [`stages`]: what a stage of a staged run may run after the earlier stages' ledgers.
//! - [`scheduler`]: the one run loop — launch a task's ordinals in order up to `jobs`, offer
//!   what they report to the task's [`scheduler::Consumer`] (the ordered sampler, or a
//!   compare task's pair sampler), cancel what is in flight at the decision, and kill
//!   everything on any other way out.
//! - [`launcher`]: what starts an ordinal ([`launcher::ProcessLauncher`] runs process groups)
//!   and the loop's in-flight guard; [`pairs`]: a `compare:` task on that loop (a pair's two
//!   sides launched together, consumed by the pair sampler); [`suite`]: a suite task's runs
//!   and cases; [`suite_pairs`]: a `compare:` suite's two sides and its cases' pair
//!   samplers, on the same loop.
//! - [`retry`]: one trial's thread — attempt 1, then transport retries with backoff.
//! - [`attempt`]: one attempt — process group, timeout, captures, result file, classification.
//! - [`capture`], [`result_file`], [`redact`]: the bounded, redacted view of what a task
//!   controls.
//! - [`session`]: the ledger lock, the header or the resume checks, and the verified
//!   read-back every verdict of `gate run` comes from.
//! - [`events`]: the [`events::RunEvent`] stream the ledger writer and the progress display
//!   consume.
//! - [`sandbox`]: the box around each trial's processes (Landlock, seccomp, environment),
//!   with its own system calls and SAFETY notes; [`mounts`], its mount layer (gate's state
//!   read-only in each trial's own mount namespace).
//! - [`spawn`]: starting a trial's process (`clone` of a function of ours sharing gate's
//!   memory: no copy of gate, the box's PID namespace included).
//! - [`sys`]: every other libc call, with SAFETY notes; the process-group registry; signals.

pub mod attempt;
pub mod capture;
pub mod dispatch;
pub mod events;
pub mod launcher;
pub mod mounts;
pub mod pairs;
pub mod redact;
pub mod result_file;
pub mod retry;
pub mod sandbox;
pub mod scheduler;
pub mod session;
pub mod spawn;
pub mod stages;
pub mod suite;
pub mod suite_pairs;
pub mod sys;

pub use attempt::{AttemptSpec, LOG_CAP, TAIL_BYTES, TAIL_LINES, run_attempt, tail};
pub use dispatch::{RunOptions, check_jobs, run_plan};
