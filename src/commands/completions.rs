//! `gate completions SHELL`: generated from the clap definition in [`crate::cli`], so it
//! lists exactly the flags the binary accepts (the manual pages: [`super::man`]).

use std::io::Write;

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::error::Error;
use crate::exit;

/// Print the completion script for a shell on stdout.
pub fn completions(args: &CompletionsArgs) -> Result<u8, Error> {
    let mut cmd = Cli::command();
    let mut out = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "gate", &mut out);
    std::io::stdout()
        .write_all(&out)
        .map_err(|e| Error::output("cannot write to stdout", e))?;
    Ok(exit::SUCCESS)
}
