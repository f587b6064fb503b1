//! `gate explain`.

use crate::cli::ExplainArgs;

/// Execute `gate explain`; returns the exit code.
pub fn execute(_args: &ExplainArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`gate explain` is not built yet")
}
