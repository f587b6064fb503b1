//! The run as a stream of events: the scheduler emits them, and each consumer — the ledger
//! writer ([`super::session::Session`]) and the live progress display — takes what it needs.
//!
//! A sink that cannot keep its record (the ledger) returns an error and the run stops with
//! no verdict (exit 4); a sink that only displays (progress) never fails the run: a closed
//! terminal or pipe just ends the display.

use crate::error::Error;
use crate::ledger::{AttemptRow, DecisionRow};
use crate::model::Tally;

/// Where the sequential rule stands: (LLR, PASS bound, FAIL bound).
pub type LlrView = (f64, f64, f64);

/// Something that happened during a run, in the order the scheduler saw it.
#[derive(Debug, Clone)]
pub enum RunEvent {
    /// A task's trials are about to start; `planned` is the most graded trials it may need.
    TaskStarted {
        /// Task id.
        task: String,
        /// n, max_trials, or the shard's share.
        planned: u64,
    },
    /// An attempt ended. `tally` and `llr` are the rule's state after the outcomes consumed
    /// so far (in ordinal order, so possibly not including this one yet).
    Attempt {
        /// The row, as the ledger records it.
        row: Box<AttemptRow>,
        /// What the sampler has consumed.
        tally: Tally,
        /// The sequential rule's position, if sequential.
        llr: Option<LlrView>,
    },
    /// A task ended with a decision row (a verdict, or none after a harness error).
    TaskDecided {
        /// The row, as the ledger records it.
        row: DecisionRow,
        /// One word for the display: the verdict or "HARNESS ERROR".
        shown: String,
    },
    /// A task stopped because the run was interrupted; it has no decision row.
    TaskInterrupted {
        /// Task id.
        task: String,
    },
    /// A suite task's runs are over; its test cases' decision rows were emitted before
    /// (the suite itself has none unless a harness error stopped it).
    TaskEnded {
        /// Task id.
        task: String,
        /// What the display shows at the end of its line.
        shown: String,
    },
}

/// A consumer of run events.
pub trait EventSink {
    /// Take one event. An error stops the run (nothing more is launched, everything in flight
    /// is killed) and becomes gate's error.
    fn event(&mut self, event: &RunEvent) -> Result<(), Error>;
}

/// Several sinks, each given every event in order; the first error stops the run.
pub struct Fanout<'a>(pub Vec<&'a mut dyn EventSink>);

impl EventSink for Fanout<'_> {
    fn event(&mut self, event: &RunEvent) -> Result<(), Error> {
        for sink in self.0.iter_mut() {
            sink.event(event)?;
        }
        Ok(())
    }
}
