//! Exit codes of the `gate` binary, defined once.
//!
//! Every command maps its outcome onto these constants here and nowhere else, so the table in
//! the README and in `gate --help` stays the single truth. CI systems branch on them: a FAIL
//! (1) is a finding about the agent, a harness error (4) is a finding about the setup.

/// PASS, or a command that succeeded (`plan`, `explain`, `verify` of a sound ledger).
pub const SUCCESS: u8 = 0;
/// FAIL: at least one task's verdict is FAIL (or a ledger failed `gate verify`).
pub const FAIL: u8 = 1;
/// Usage error or invalid input: bad flags, a malformed or impossible plan, an unreadable ledger.
pub const USAGE: u8 = 2;
/// INCONCLUSIVE: no task failed, but at least one could not be decided
/// (0 instead under `on_inconclusive: pass`).
pub const INCONCLUSIVE: u8 = 3;
/// Harness error: a task could not be run at all (exit 126/127, a missing `check`, a broken
/// result file). The run is invalid and no verdict is published.
pub const HARNESS: u8 = 4;
/// Interrupted by SIGINT (Ctrl-C); the ledger is closed with an INCONCLUSIVE footer.
pub const INTERRUPTED: u8 = 130;
/// Interrupted by SIGTERM; the ledger is closed as for SIGINT.
pub const TERMINATED: u8 = 143;

/// The exit-code table as printed at the end of `gate --help`.
pub const HELP_TABLE: &str = "\
Exit codes:
  0    PASS (or success for plan, explain, verify)
  1    FAIL (or a ledger that fails verify)
  2    usage error or invalid input (plan file, flags, ledger)
  3    INCONCLUSIVE (0 under `on_inconclusive: pass`)
  4    harness error: a task could not run; no verdict published
  130  interrupted (SIGINT); 143 on SIGTERM";

/// An error that makes the run invalid (exit 4) rather than the input (exit 2).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HarnessFault(pub String);

/// The exit code for an error that reached `main`: [`HARNESS`] if a [`HarnessFault`] is in
/// its chain, otherwise [`USAGE`] (invalid input, unreadable file, bad flag value).
pub fn code_for(err: &anyhow::Error) -> u8 {
    if err.chain().any(|e| e.is::<HarnessFault>()) {
        HARNESS
    } else {
        USAGE
    }
}
