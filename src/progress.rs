//! Live progress of `gate run`: an indicatif bar per task on a terminal, one plain line per
//! finished trial elsewhere (CI logs). Display only: nothing here feeds a report.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::ledger::{AttemptRow, Outcome};
use crate::sampler::Tally;

/// Progress output for a whole run.
#[derive(Debug)]
pub struct Progress {
    multi: Option<MultiProgress>,
}

/// Progress of one task.
#[derive(Debug)]
pub struct TaskProgress {
    id: String,
    bar: Option<ProgressBar>,
}

impl Progress {
    /// Bars when stderr is a terminal, plain lines otherwise.
    pub fn new() -> Self {
        let multi = std::io::stderr()
            .is_terminal()
            .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr_with_hz(10)));
        Progress { multi }
    }

    /// Print a line above the bars (or plainly).
    pub fn println(&self, line: &str) {
        match &self.multi {
            Some(m) => {
                let _ = m.println(line);
            }
            None => eprintln!("{line}"),
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
            bar.set_prefix(id.to_string());
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        TaskProgress {
            id: id.to_string(),
            bar,
        }
    }
}

impl Default for Progress {
    fn default() -> Self {
        Self::new()
    }
}

impl TaskProgress {
    /// An attempt ended; `tally` is what the sampler has consumed; `sprt` is (llr, pass
    /// bound, fail bound) for sequential rules.
    pub fn attempt(&self, row: &AttemptRow, tally: Tally, sprt: Option<(f64, f64, f64)>) {
        let position = sprt
            .map(|(llr, lo, hi)| sprt_gauge(llr, lo, hi))
            .unwrap_or_default();
        let msg = format!(
            "pass {} fail {} unavailable {}{}",
            tally.passed, tally.failed, tally.unavailable, position
        );
        match &self.bar {
            Some(bar) => {
                bar.set_position(tally.graded());
                bar.set_message(msg);
            }
            None => {
                let outcome = match row.outcome {
                    Outcome::Pass => "pass",
                    Outcome::Fail => "FAIL",
                    Outcome::Unavailable => "unavailable",
                    Outcome::Cancelled => "cancelled",
                    Outcome::HarnessError => "HARNESS ERROR",
                };
                let attempt = if row.attempt > 1 {
                    format!(" attempt {}", row.attempt)
                } else {
                    String::new()
                };
                let why = row
                    .reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                eprintln!(
                    "{} #{:03}{attempt}: {outcome}{why} in {:.2}s — {msg}",
                    self.id, row.trial, row.duration_s
                );
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
