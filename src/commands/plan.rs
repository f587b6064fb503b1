//! `gate plan`.

use crate::cli::PlanArgs;

/// Execute `gate plan`; returns the exit code.
pub fn execute(_args: &PlanArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`gate plan` is not built yet")
}
