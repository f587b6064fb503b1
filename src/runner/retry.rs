//! Transport retries: the attempts after attempt 1 that a declared transport fault allows.
//!
//! A trial's attempt 1 is its grade and is never replaced (invariant 1); later attempts exist
//! only for declared transport faults, are recorded, and are never graded. This module runs
//! one trial on its own thread — attempt 1, then retries with exponential backoff while the
//! fault is a transport fault and the budget allows — and reports every attempt to the
//! scheduler.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant, SystemTime};

use crate::ledger::AttemptRow;
use crate::model::Fault;

/// The retry policy of a task.
#[derive(Debug, Clone, Copy)]
pub struct RetryPolicy {
    /// Transport retries per trial.
    pub max_retries: u32,
    /// First backoff delay.
    pub backoff_min: Duration,
    /// Largest backoff delay.
    pub backoff_max: Duration,
}

/// A message from a trial's thread to the scheduler.
#[derive(Debug)]
pub enum TrialMsg {
    /// An attempt ended; `last` when the trial's thread will send nothing more.
    Attempt {
        /// The attempt's row.
        row: Box<AttemptRow>,
        /// No further attempt follows.
        last: bool,
    },
    /// The trial's thread ended without a final attempt (cancelled during a backoff, or a
    /// bug unwound it).
    Done(u64),
}

/// Run trial `ordinal`: `attempt(n)` for n = 1, 2, … while the previous attempt was a
/// transport fault and retries remain, sleeping the backoff in between. Every attempt is sent
/// on `tx`; the scheduler hears that the trial is over whatever happens on this thread.
pub fn run_trial(
    ordinal: u64,
    policy: RetryPolicy,
    cancel: &AtomicBool,
    tx: &mpsc::Sender<TrialMsg>,
    mut attempt: impl FnMut(u32) -> AttemptRow,
) {
    // A trial that never reports would keep gate waiting forever.
    let mut done = DoneGuard {
        tx: tx.clone(),
        trial: ordinal,
        armed: true,
    };
    let mut n = 1u32;
    loop {
        let row = attempt(n);
        let retry = row.fault == Some(Fault::Transport)
            && n <= policy.max_retries
            && !cancel.load(Ordering::Relaxed);
        if !retry {
            // `attempt` (and what it holds: the trial's result folder, the run's box) is
            // dropped before the scheduler hears the trial is over, so the run cannot end
            // and exit while this thread still holds them.
            drop(attempt);
            done.armed = false;
            let _ = tx.send(TrialMsg::Attempt {
                row: Box::new(row),
                last: true,
            });
            return;
        }
        done.armed = true;
        let _ = tx.send(TrialMsg::Attempt {
            row: Box::new(row),
            last: false,
        });
        if !sleep_unless(backoff(policy.backoff_min, policy.backoff_max, n), cancel) {
            // `done` then says the trial is over, once `attempt` is dropped.
            drop(attempt);
            return;
        }
        n += 1;
    }
}

/// Sends `Done` when a trial's thread ends without having sent its last attempt.
struct DoneGuard {
    tx: mpsc::Sender<TrialMsg>,
    trial: u64,
    armed: bool,
}

impl Drop for DoneGuard {
    fn drop(&mut self) {
        if self.armed {
            let _ = self.tx.send(TrialMsg::Done(self.trial));
        }
    }
}

/// Exponential backoff before attempt `after + 1`, with jitter uniform in [50%, 100%].
pub fn backoff(min: Duration, max: Duration, after: u32) -> Duration {
    let base = min.as_secs_f64() * 2f64.powi(after.saturating_sub(1).min(30) as i32);
    let capped = base.min(max.as_secs_f64());
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or(0);
    // The jitter only spreads retries in time; it needs no statistical quality.
    let jitter = 0.5 + 0.5 * f64::from(nanos % 1_000_000) / 1_000_000.0;
    Duration::from_secs_f64(capped * jitter)
}

/// Sleep for `d` unless cancelled first; returns false when cancelled.
pub fn sleep_unless(d: Duration, cancel: &AtomicBool) -> bool {
    let now = Instant::now();
    let Some(end) = now.checked_add(d) else {
        return false;
    };
    while Instant::now() < end {
        if cancel.load(Ordering::Relaxed) {
            return false;
        }
        std::thread::sleep(
            Duration::from_millis(20).min(end.saturating_duration_since(Instant::now())),
        );
    }
    !cancel.load(Ordering::Relaxed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap_with_jitter_in_the_upper_half() {
        let (min, max) = (Duration::from_millis(100), Duration::from_millis(300));
        for (after, full) in [(1, 100.0), (2, 200.0), (3, 300.0), (40, 300.0)] {
            let d = backoff(min, max, after).as_secs_f64() * 1000.0;
            assert!(d >= full * 0.5 - 1e-9 && d <= full + 1e-9, "{after}: {d}");
        }
    }

    #[test]
    fn a_cancelled_sleep_returns_false() {
        let cancel = AtomicBool::new(true);
        assert!(!sleep_unless(Duration::from_secs(60), &cancel));
    }
}
