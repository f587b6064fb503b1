//! The `gate` binary: parse arguments, dispatch to a command, print the error chain, exit.

use std::process::ExitCode;

use clap::Parser;
use gate::cli::{Cli, Command};
use gate::{commands, exit};

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match &cli.command {
        Command::Plan(args) => commands::plan::execute(args),
        Command::Explain(args) => commands::explain::execute(args),
        Command::Run(args) => commands::run::execute(args),
        Command::Report(args) => commands::report::execute(args),
        Command::Verify(args) => commands::verify::execute(args),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("error: {err}");
            for cause in err.chain().skip(1) {
                eprintln!("  caused by: {cause}");
            }
            ExitCode::from(exit::code_for(&err))
        }
    }
}
