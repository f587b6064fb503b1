//! `gate report`.

use crate::cli::ReportArgs;

/// Execute `gate report`; returns the exit code.
pub fn execute(_args: &ReportArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`gate report` is not built yet")
}
