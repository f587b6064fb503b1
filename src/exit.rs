//! Exit codes of the `gate` binary, defined once: the codes, and the functions that turn a
//! verdict ([`for_verdict`]), a finished run ([`for_run`]) and a signal ([`for_signal`]) into
//! one. Errors become codes in [`crate::Error::exit_code`]. A module of its own, below every
//! other, so the report model and the runner can name a code without depending on the error
//! type that wraps their own errors.

/// PASS, or a command that succeeded (`plan`, `explain`, `verify` of a sound ledger).
pub const SUCCESS: u8 = 0;
/// FAIL: at least one task's verdict is FAIL (or a ledger failed `gate verify`).
pub const FAIL: u8 = 1;
/// Usage error or invalid input: bad flags, a malformed or impossible plan, an unreadable
/// ledger, a ledger another run holds.
pub const USAGE: u8 = 2;
/// INCONCLUSIVE: no task failed, but at least one could not be decided
/// (0 instead under `on_inconclusive: pass`).
pub const INCONCLUSIVE: u8 = 3;
/// Harness error: a task could not be run at all (exit 126/127, a missing `check`, a
/// broken result file), or gate could not keep its own record (the ledger or a report
/// could not be written, or the ledger was changed behind its back). No verdict is
/// published.
pub const HARNESS: u8 = 4;
/// CONTINUE: the ledgers are the complete stages so far of a staged run whose rule has
/// not decided; run the next stage (`gate report` names it). Not a verdict.
pub const CONTINUE: u8 = 5;
/// Interrupted by SIGINT (Ctrl-C); the ledger is closed with an INCONCLUSIVE footer.
pub const INTERRUPTED: u8 = 130;
/// Interrupted by SIGTERM; the ledger is closed as for SIGINT.
pub const TERMINATED: u8 = 143;

/// The exit code of a task's or a gate's verdict: 0 PASS, 1 FAIL, 3 INCONCLUSIVE (0 under
/// `on_inconclusive: pass`), 4 for no verdict (a harness error). The one place verdicts
/// become codes.
pub fn for_verdict(
    verdict: crate::model::Judgement,
    on_inconclusive: crate::model::OnInconclusive,
) -> u8 {
    use crate::model::{Judgement, OnInconclusive, Verdict};
    match verdict {
        Judgement::HarnessError => HARNESS,
        Judgement::Verdict(Verdict::Pass) => SUCCESS,
        Judgement::Verdict(Verdict::Fail) => FAIL,
        Judgement::Verdict(Verdict::Inconclusive) => match on_inconclusive {
            OnInconclusive::Fail => INCONCLUSIVE,
            OnInconclusive::Pass => SUCCESS,
        },
    }
}

/// The exit code a finished run publishes (and its footer records): its verdict's, except
/// that one shard of a sharded run publishes no verdict of its own and exits 0 unless its
/// own trials already make a FAIL certain (`gate report` over every shard decides). Used
/// by `gate run` and by `gate verify`'s check of the footer, so the two cannot drift.
pub fn for_run(
    verdict: crate::model::Judgement,
    on_inconclusive: crate::model::OnInconclusive,
    sharded: bool,
) -> u8 {
    use crate::model::{Judgement, Verdict};
    match verdict {
        Judgement::Verdict(v) if sharded && v != Verdict::Fail => SUCCESS,
        _ => for_verdict(verdict, on_inconclusive),
    }
}

/// The exit code of a run stopped by a signal: 143 for SIGTERM, 130 for SIGINT (the
/// shell's 128 + signal number). Those are the only signals gate handles; any other
/// reads as an interrupt.
pub fn for_signal(signal: libc::c_int) -> u8 {
    if signal == libc::SIGTERM {
        TERMINATED
    } else {
        INTERRUPTED
    }
}

/// The exit-code table as printed at the end of `gate --help`.
pub const HELP_TABLE: &str = "\
Exit codes:
  0    PASS (or success for plan, explain, verify)
  1    FAIL (or a ledger that fails verify)
  2    usage error or invalid input (plan file, flags, ledger)
  3    INCONCLUSIVE (0 under `on_inconclusive: pass`)
  4    harness error: a task could not run, or gate could not keep its record; no verdict
  5    CONTINUE: a staged run is undecided after its stages so far; run the next stage
  130  interrupted (SIGINT); 143 on SIGTERM";
