//! `gate run`.

use crate::cli::RunArgs;

/// Execute `gate run`; returns the exit code.
pub fn execute(_args: &RunArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`gate run` is not built yet")
}
