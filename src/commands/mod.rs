//! One module per subcommand: each turns its parsed arguments into library calls and returns
//! the exit code. Errors propagate to `main`, which prints them and maps them to a code.

pub mod check;
pub mod completions;
pub mod explain;
pub mod explain_junit;
pub mod ingest;
pub mod init;
pub mod man;
pub mod plan;
pub mod report;
pub mod run;
pub mod schema;
pub mod suite;
pub mod verify;

/// The one preflight of every command's report paths ([`crate::publish::preflight`]), with
/// the command's own files (`guarded`: ledgers, plan, inputs), before anything runs.
pub(crate) fn preflight(
    files: &crate::cli::ReportFiles,
    guarded: &[crate::publish::Guarded],
) -> Result<crate::publish::Outputs, crate::Error> {
    let step = crate::output::step_summary(files.no_step_summary);
    let req = crate::publish::Request {
        junit: files.junit.as_deref(),
        summary: files.summary.as_deref(),
        json: files.json.as_deref(),
        svg: None,
        step_summary: step.as_deref(),
    };
    let mut outputs = crate::publish::preflight(&req, guarded)?;
    // The reports' text was redacted as it was read; what rendering makes of it is redacted
    // once more, against the secrets of gate's environment (review 50, rev50a 16).
    let redactor = crate::runner::redact::Redactor::of_process_env(Vec::new());
    outputs.scrub_with(move |t| redactor.apply(t));
    Ok(outputs)
}

/// Say on stderr what in the plan is legal but almost surely not meant: a rate below 1% (a
/// mistyped percentage), a definition a `check:` reaches besides its named programs.
pub(crate) fn warn_about(plan: &crate::plan::Plan) {
    let warnings = plan.rate_warnings();
    for w in warnings
        .iter()
        .chain(&crate::plan::reach::definition_warnings(plan))
        .chain(&crate::plan::reach::unheld_program_warnings(plan))
    {
        eprintln!("{}", crate::untrusted::log_line(w));
    }
}

/// `--single N,C` (runs, failures tolerated) as (n, c), for `gate suite` and `gate ingest`.
pub(crate) fn parse_single(single: &str) -> Result<(u64, u64), crate::Error> {
    let bad = || {
        crate::error::usage!(
            "`--single {single}`: expected N,C (runs, failures tolerated), e.g. `--single 20,3`"
        )
    };
    let (n, c) = single.split_once(',').ok_or_else(bad)?;
    let parse = |x: &str| x.trim().parse().map_err(|_| bad());
    Ok((parse(n)?, parse(c)?))
}

/// Print `report`'s human summary, coloured for the stream it goes to: stderr when a report
/// goes to stdout (`--json -`), else stdout. A closed stream ends the printing, not the
/// command.
pub(crate) fn print_summary(
    report: &crate::report::Report,
    output: &crate::cli::OutputArgs,
    outputs: &crate::publish::Outputs,
) {
    use std::io::{IsTerminal as _, Write as _};
    let text =
        |tty| crate::output::Output::resolve(&output.into(), tty).summary(&report.terminal());
    let _ = if outputs.to_stdout() {
        let text = text(std::io::stderr().is_terminal());
        std::io::stderr().lock().write_all(text.as_bytes())
    } else {
        let text = text(std::io::stdout().is_terminal());
        std::io::stdout().lock().write_all(text.as_bytes())
    };
}

impl From<&crate::cli::OutputArgs> for crate::output::OutputOptions {
    fn from(a: &crate::cli::OutputArgs) -> Self {
        use crate::cli::ColorChoice;
        use crate::output::ColorWhen;
        crate::output::OutputOptions {
            quiet: a.quiet,
            verbose: a.verbose,
            color: match a.color {
                ColorChoice::Auto => ColorWhen::Auto,
                ColorChoice::Always => ColorWhen::Always,
                ColorChoice::Never => ColorWhen::Never,
            },
        }
    }
}

impl From<crate::cli::InconclusivePolicy> for crate::model::OnInconclusive {
    fn from(p: crate::cli::InconclusivePolicy) -> Self {
        match p {
            crate::cli::InconclusivePolicy::Fail => crate::model::OnInconclusive::Fail,
            crate::cli::InconclusivePolicy::Pass => crate::model::OnInconclusive::Pass,
        }
    }
}
