//! The `gate` binary: parse arguments, dispatch to a command, print the error chain, exit.

use std::io::Write;
use std::process::ExitCode;

use gate::cli::Command;
use gate::commands;

fn main() -> ExitCode {
    // First, while gate has one thread: no task may read gate's secrets from
    // /proc/PID/environ (docs/trust.md, "Environment").
    gate::runner::sys::scrub_initial_environ();
    gate::runner::sys::one_allocator_arena();
    gate::runner::sys::close_inherited_descriptors_on_exec();
    let cli = gate::cli::parse();
    // Commands that only print stop quietly on a closed stdout; the ones that publish a
    // verdict handle the write error themselves and finish their work.
    if !matches!(
        cli.command,
        Command::Run(_) | Command::Ingest(_) | Command::Suite(_) | Command::Report(_)
    ) {
        gate::runner::sys::die_quietly_on_closed_stdout();
    }
    let result = match &cli.command {
        Command::Plan(args) => commands::plan::execute(args),
        Command::Explain(args) => commands::explain::execute(args),
        Command::Run(args) => commands::run::execute(args, &cli.output),
        Command::Ingest(args) => commands::ingest::execute(args, &cli.output),
        Command::Suite(args) => commands::suite::execute(args, &cli.output),
        Command::Report(args) => commands::report::execute(args, &cli.output),
        Command::Verify(args) => commands::verify::execute(args),
        Command::Init(args) => commands::init::execute(args),
        Command::Check(args) => commands::check::execute(args),
        Command::Schema(args) => commands::schema::execute(args),
        Command::Completions(args) => commands::completions::completions(args),
        Command::Man(args) => commands::man::execute(args),
        Command::BuildId => {
            println!("{}", env!("GATE_SOURCE_HASH"));
            Ok(gate::exit::SUCCESS)
        }
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            // Messages can quote task text (ids, result-file keys, ledger rows): printed so
            // that no line becomes a workflow command.
            let _ = writeln!(
                std::io::stderr(),
                "{}",
                gate::untrusted::log_text(&format!("error: {err}"))
            );
            let mut cause = std::error::Error::source(&err);
            while let Some(c) = cause {
                let _ = writeln!(
                    std::io::stderr(),
                    "{}",
                    gate::untrusted::log_text(&format!("  caused by: {c}"))
                );
                cause = c.source();
            }
            ExitCode::from(err.exit_code())
        }
    }
}
