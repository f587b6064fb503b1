//! `gate verify LEDGER...`: audit ledgers. Exit 0 when every ledger is sound (and print the
//! SHA-256 of its last row, the head of the hash chain), 1 naming the first bad row
//! (`file:line`) when one is not, 2 when a ledger cannot be read or a row does not parse
//! (`file:line:col`).

use crate::cli::VerifyArgs;
use crate::error::Error;
use crate::exit;
use crate::ledger::Ledger;
use crate::report::verify::audit;
use crate::untrusted;

/// Problems printed per ledger after the first (the first bad row is always printed).
const SHOWN: usize = 20;

/// Execute `gate verify`; returns the exit code.
pub fn execute(args: &VerifyArgs) -> Result<u8, Error> {
    let mut code = exit::SUCCESS;
    for path in &args.ledgers {
        let ledger = Ledger::read(path)?;
        let a = audit(&ledger);
        for w in &a.warnings {
            eprintln!("{}", untrusted::log_line(&format!("warning: {w}")));
        }
        if a.problems.is_empty() {
            println!(
                "{}: ok: {} rows, hash chain intact, {} from the attempt rows",
                path.display(),
                a.rows,
                // "1 decision recomputes", "2 decisions recompute".
                if a.decisions_checked == 1 {
                    "1 decision recomputes".to_string()
                } else {
                    format!("{} decisions recompute", a.decisions_checked)
                }
            );
            // The chain protects every row but the last: compare this with the head hash
            // recorded when the run ended (its CI log) to protect the last row too.
            println!("  head sha256 {}", ledger.last_hash);
            continue;
        }
        code = exit::FAIL;
        eprintln!(
            "{}",
            untrusted::log_line(&format!("error: {}", a.problems[0]))
        );
        for p in a.problems.iter().skip(1).take(SHOWN) {
            eprintln!("{}", untrusted::log_line(&format!("  also: {p}")));
        }
        if a.problems.len() > SHOWN + 1 {
            eprintln!("  and {} more", a.problems.len() - SHOWN - 1);
        }
        println!(
            "{}: BAD: {} problem{}; first bad row {}",
            path.display(),
            a.problems.len(),
            if a.problems.len() == 1 { "" } else { "s" },
            a.problems[0].at
        );
    }
    Ok(code)
}
