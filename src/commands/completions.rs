//! `gate completions SHELL`: generated from the clap definition in [`crate::cli`], so it
//! lists exactly the flags the binary accepts (the manual pages: [`super::man`]).

use std::io::Write;

use anyhow::Context;
use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit;

/// Print the completion script for a shell on stdout.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<u8> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "gate", &mut out);
    std::io::stdout()
        .write_all(&out)
        .context("cannot write to stdout")?;
    Ok(exit::SUCCESS)
}
