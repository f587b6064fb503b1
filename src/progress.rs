//! Live progress of `gate run`: an indicatif bar per task on a terminal, one plain line per
//! finished trial elsewhere (CI logs). Display only: nothing here feeds a report.
//!
//! Progress consumes the run's [`RunEvent`]s and never fails the run: when stderr is closed
//! (`gate run plan 2>&1 | head -1`), the first failed write ends the display quietly and the
//! run goes on to its verdict and exit code.
//!
//! Every line that carries task text (ids, reasons, warnings) goes through
//! [`untrusted::log_line`]: one line, control characters escaped, never a workflow command.

use std::cell::Cell;
use std::collections::HashMap;
use std::io::{IsTerminal, Write};
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::error::Error;
use crate::ledger::AttemptRow;
use crate::model::{Outcome, Tally};
use crate::runner::events::{EventSink, RunEvent};
use crate::untrusted;

/// Write one line to stderr, made safe for a CI log; false once stderr is closed (never a
/// panic).
fn line_to_stderr(line: &str) -> bool {
    writeln!(std::io::stderr().lock(), "{}", untrusted::log_line(line)).is_ok()
}

/// Progress output for a whole run.
#[derive(Debug)]
pub struct Progress {
    multi: Option<MultiProgress>,
    /// False once a write to stderr failed: the display has stopped.
    live: Cell<bool>,
    tasks: HashMap<String, TaskProgress>,
    /// `--quiet`: no bars and no per-trial lines (notices and warnings still print).
    quiet: bool,
}

/// Progress of one task.
#[derive(Debug)]
pub struct TaskProgress {
    id: String,
    bar: Option<ProgressBar>,
    /// A result-file warning is printed once per task, not once per trial.
    warned: Cell<bool>,
}

impl Progress {
    /// Bars when stderr is a terminal, plain lines otherwise; neither when `quiet`.
    pub fn new(quiet: bool) -> Self {
        let multi = std::io::stderr()
            .is_terminal()
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10)));
        Progress {
            multi,
            live: Cell::new(true),
            tasks: HashMap::new(),
            quiet,
        }
    }

    /// Print a line above the bars (or plainly); nothing once stderr has closed.
    pub fn println(&self, line: &str) {
        if !self.live.get() {
            return;
        }
        match &self.multi {
            Some(m) => {
                if m.println(untrusted::log_line(line)).is_err() {
                    self.live.set(false);
                }
            }
            None => self.live.set(line_to_stderr(line)),
        }
    }

    /// Start a task's display; `planned` is n or max_trials.
    pub fn task(&self, id: &str, planned: u64) -> TaskProgress {
        let bar = self.multi.as_ref().map(|m| {
            let bar = m.add(ProgressBar::new(planned));
            bar.set_style(
                ProgressStyle::with_template(
                    "{prefix:.bold} [{bar:24.cyan/blue}] {pos}/{len} {msg} {elapsed}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar())
                .progress_chars("=> "),
            );
            bar.set_prefix(untrusted::one_line(id).into_owned());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        TaskProgress {
            id: id.to_string(),
            bar,
            warned: Cell::new(false),
        }
    }
}

impl EventSink for Progress {
    fn event(&mut self, event: &RunEvent) -> Result<(), Error> {
        if self.quiet {
            return Ok(());
        }
        match event {
            RunEvent::TaskStarted { task, planned } => {
                let t = self.task(task, *planned);
                self.tasks.insert(task.clone(), t);
            }
            RunEvent::Attempt { row, tally, llr } => {
                if let Some(t) = self.tasks.get(&row.task)
                    && self.live.get()
                {
                    self.live.set(t.attempt(row, *tally, *llr));
                }
            }
            RunEvent::TaskDecided { row, shown } => {
                if let Some(t) = self.tasks.remove(&row.task) {
                    t.finish(shown);
                }
            }
            RunEvent::TaskInterrupted { task } => {
                if let Some(t) = self.tasks.remove(task) {
                    t.finish("interrupted");
                }
            }
            RunEvent::TaskEnded { task, shown } => {
                if let Some(t) = self.tasks.remove(task) {
                    t.finish(shown);
                }
            }
        }
        Ok(())
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new(false)
    }
}

impl TaskProgress {
    /// An attempt ended; `tally` is what the sampler has consumed; `sprt` is (llr, pass
    /// bound, fail bound) for sequential rules. False once stderr is closed.
    pub fn attempt(&self, row: &AttemptRow, tally: Tally, sprt: Option<(f64, f64, f64)>) -> bool {
        let position = sprt
            .map(|(llr, lo, hi)| sprt_gauge(llr, lo, hi))
            .unwrap_or_default();
        if let Some(w) = row
            .detail
            .result
            .as_ref()
            .and_then(|r| r.warning.as_deref())
            && !self.warned.replace(true)
        {
            let line = untrusted::log_line(&format!(
                "gate: warning: task `{}` trial {}: {w} (shown once per task; every attempt's \
                 warning is in the ledger)",
                self.id, row.trial
            ));
            match &self.bar {
                Some(bar) => bar.println(line),
                None => {
                    if !line_to_stderr(&line) {
                        return false;
                    }
                }
            }
        }
        // A suite run's tally is of runs: what it says is how its test cases did.
        let msg = match &row.suite_run {
            Some(r) => format!(
                "{} test case{} ran, {} failed",
                r.cases,
                if r.cases == 1 { "" } else { "s" },
                r.failed
            ),
            None => format!(
                "pass {} fail {} unavailable {}{}",
                tally.passed, tally.failed, tally.unavailable, position
            ),
        };
        match &self.bar {
            Some(bar) => {
                bar.set_position(tally.graded());
                bar.set_message(msg);
                true
            }
            None => {
                let outcome = match row.outcome {
                    Outcome::Pass if row.suite_run.is_some() => "ran",
                    Outcome::Pass => "pass",
                    Outcome::Fail => "FAIL",
                    Outcome::Unavailable => "unavailable",
                    Outcome::Cancelled => "cancelled",
                    Outcome::HarnessError => "HARNESS ERROR",
                };
                let mut attempt = if row.attempt > 1 {
                    format!(" attempt {}", row.attempt)
                } else {
                    String::new()
                };
                // A compare task's pair: which side this was.
                if let Some(side) = row.side {
                    attempt = format!(" {}{attempt}", side.as_str());
                }
                let why = row
                    .detail
                    .reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                line_to_stderr(&format!(
                    "{} #{:03}{attempt}: {outcome}{why} in {:.2}s — {msg}",
                    self.id, row.trial, row.duration_s
                ))
            }
        }
    }

    /// The task is decided (or stopped).
    pub fn finish(&self, verdict: &str) {
        if let Some(bar) = &self.bar {
            // `abandon` keeps the position: the bar shows the trials graded, not the plan size.
            bar.abandon_with_message(format!("{} — {verdict}", bar.message()));
        }
    }
}

/// Where the LLR stands between the PASS bound (left) and the FAIL bound (right).
fn sprt_gauge(llr: f64, lo: f64, hi: f64) -> String {
    const WIDTH: usize = 15;
    let frac = ((llr - lo) / (hi - lo)).clamp(0.0, 1.0);
    let pos = (frac * (WIDTH - 1) as f64).round() as usize;
    let mut g: Vec<char> = vec!['-'; WIDTH];
    g[pos] = '*';
    format!(
        " PASS|{}|FAIL LLR {llr:+.2}",
        g.into_iter().collect::<String>()
    )
}
