//! `gate verify`.

use crate::cli::VerifyArgs;

/// Execute `gate verify`; returns the exit code.
pub fn execute(_args: &VerifyArgs) -> anyhow::Result<u8> {
    anyhow::bail!("`gate verify` is not built yet")
}
