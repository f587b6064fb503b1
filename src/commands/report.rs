//! `gate report LEDGER...`: recompute the reports of a run — or merge the shards of one run —
//! from ledgers alone, print the terminal summary, write the report files asked for, and exit
//! with the verdict's code. That is `gate run`'s code too, except for an interrupted run
//! (`gate run` exits 130/143, this 3) and a lone shard (`gate run --shard` exits 0 unless FAIL
//! is certain, this 3). A ledger that `gate run` cannot have written (an impossible header or
//! ordinal) is refused with exit 2.

use crate::cli::{OutputArgs, ReportArgs};
use crate::error::{Context, Error};
use crate::ledger::Ledger;
use crate::publish::Guarded;
use crate::report::{self, Report};

/// Execute `gate report`; returns the exit code.
pub fn execute(args: &ReportArgs, output: &OutputArgs) -> Result<u8, Error> {
    let guarded: Vec<Guarded> = args
        .ledgers
        .iter()
        .map(|l| Guarded::read("a ledger given", l, true))
        .collect();
    // Before reading anything: `--json` naming a ledger would replace the evidence with a
    // report of it. The same ledger twice is allowed (it is de-duplicated).
    let outputs = super::preflight(&args.reports, &guarded)?;
    let on_inconclusive = args.on_inconclusive.map(Into::into);
    let ledgers = args
        .ledgers
        .iter()
        // A report rests only on rows the hash chain covers: a footerless ledger's last row
        // is left out (and named), so cutting a ledger after a row and editing that row
        // cannot turn its verdict (issue 29, V1).
        .map(|p| Ledger::read(p).map(Ledger::chain_covered))
        .collect::<Result<Vec<_>, _>>()
        .context("cannot read ledger")?;
    refuse_disagreeing_decisions(&ledgers)?;
    let report = Report::from_ledgers(&ledgers, on_inconclusive)
        .context("cannot make a report from these ledgers")?
        .listing_every_case(output.verbose);
    // The reports are made from `report` alone: the rows it does not hold (a large suite's
    // ledgers are hundreds of megabytes in memory) go before the reports are rendered.
    drop(ledgers);
    // A report path swapped while the command ran: say so instead of printing a verdict
    // that is then not published.
    outputs.recheck()?;
    // With a report on stdout (`--json -`), the human summary goes to stderr.
    super::print_summary(&report, output, &outputs);
    report::emit(&report, &outputs)?;
    Ok(report.exit_code())
}

/// Refuse ledgers whose decision rows or footer disagree with what their own attempt rows
/// recompute to. `gate run` never writes such a ledger; a re-chained forgery does (a FAIL
/// turned into PASS with the hash chain rebuilt), and the sharded workflow's merge job relies
/// on `report`, so it must not publish either verdict.
fn refuse_disagreeing_decisions(ledgers: &[Ledger]) -> Result<(), Error> {
    for l in ledgers {
        let audit = crate::report::verify::audit(l);
        if let Some(first) = audit.disagreements.first() {
            let more = audit.disagreements.len() - 1;
            return Err(Error::Usage(format!(
                "{first}; the ledger's recorded decisions are not what its attempt rows recompute to, \
                 so no verdict is published{} (`gate verify` lists every problem)",
                if more > 0 {
                    format!(
                        " ({more} more disagreement{})",
                        if more == 1 { "" } else { "s" }
                    )
                } else {
                    String::new()
                }
            )));
        }
    }
    Ok(())
}
