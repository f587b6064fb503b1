//! `gate verify`'s audit of one ledger: the rows form an unbroken hash chain, every trial's
//! attempts run 1..k without gaps, every task has its decision, and every decision row (and the
//! footer's verdict) equals what the attempt rows recompute to.
//!
//! Parse errors are not found here: [`Ledger::read`] already refuses a row that does not parse,
//! with `file:line:col`. A torn last line is a warning, not a problem: a crash may lose the row
//! being written (invariant 5).

use std::collections::{BTreeMap, BTreeSet};

use crate::ledger::{Ledger, Row, RunStatus};
use crate::model::{Judgement, Outcome};

use super::ReportError;
use super::error::Source;
use super::replay::{TaskReplay, replay};

/// An attempt row, as the audit checks it: which trial and attempt, and where.
struct AttemptAt<'a> {
    task: &'a str,
    trial: u64,
    side: Option<crate::pair_sampler::Side>,
    attempt: u32,
    row: usize,
    outcome: Outcome,
}

impl AttemptAt<'_> {
    fn key(&self) -> (&str, u64, Option<crate::pair_sampler::Side>, u32) {
        (self.task, self.trial, self.side, self.attempt)
    }
}

/// One thing wrong with a ledger, at a row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// The row (1-based line), or the end of the file for something missing.
    pub at: Source,
    /// What is wrong, as a lowercase fragment.
    pub what: String,
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.at, self.what)
    }
}

/// What `verify` found in one ledger.
#[derive(Debug, Clone, Default)]
pub struct Audit {
    /// Problems, in file order: the first is the first bad row.
    pub problems: Vec<Problem>,
    /// Things worth saying that do not make the ledger bad.
    pub warnings: Vec<String>,
    /// Rows read.
    pub rows: usize,
    /// Decision rows that recompute.
    pub decisions_checked: usize,
    /// The decision rows and footer that disagree with the replay of the attempt rows (also
    /// in `problems`): what a re-chained forgery shows, and what `gate report` refuses.
    pub disagreements: Vec<Problem>,
}

/// Audit one ledger. Fails only when the ledger cannot be replayed at all (a conflicting row,
/// an attempt row for a task the header does not name), which is reported as a problem too.
pub fn audit(ledger: &Ledger) -> Audit {
    let mut out = Audit {
        rows: ledger.records.len(),
        ..Audit::default()
    };
    let path = std::sync::Arc::new(ledger.path.clone());
    let at = |i: usize| Source {
        path: path.clone(),
        line: i as u64 + 1,
    };
    let end = Source {
        path: path.clone(),
        line: ledger.records.len() as u64 + 1,
    };

    if let Some(tail) = &ledger.torn_tail {
        out.warnings.push(format!(
            "{}: unterminated last line ({} bytes) ignored: a row lost in a crash",
            end,
            tail.len()
        ));
    }
    if ledger.blank_tail > 0 {
        out.warnings.push(format!(
            "{}: {} blank line(s) after the last row ignored: no row, and nothing the hash chain \
             covers (an editor's or an `echo >>`'s newline)",
            end, ledger.blank_tail
        ));
    }
    if let Some((i, what)) = ledger.first_chain_break() {
        out.problems.push(Problem {
            at: at(i),
            what: if i == 0 {
                format!("hash chain broken: {what}")
            } else {
                format!("hash chain broken after line {i}: {what}")
            },
        });
    }

    // Attempts of each trial must be 1..k, each once (a cancelled attempt may be run again
    // after a `--resume` row). A compare task's pair has one trial per side.
    //
    // One small entry per attempt row, sorted by trial and attempt (stable, so rows of one
    // attempt stay in file order), rather than a map per trial: a suite of 100,000 cases
    // has 900,000 trials, and a map each held 230 bytes a trial (issue 30).
    let mut attempts: Vec<AttemptAt<'_>> = Vec::new();
    let mut resumes: Vec<usize> = Vec::new();
    // Problems found row by row (a second header, an attempt recorded again), reported in
    // file order.
    let mut again: Vec<Problem> = Vec::new();
    for (i, rec) in ledger.records.iter().enumerate() {
        match &rec.row {
            Row::Header(_) if i != 0 => again.push(Problem {
                at: at(i),
                what: "a second header row".to_string(),
            }),
            Row::Resume(_) => resumes.push(i),
            Row::Attempt(a) => attempts.push(AttemptAt {
                task: a.task.as_str(),
                trial: a.trial,
                side: a.side,
                attempt: a.attempt,
                row: i,
                outcome: a.outcome,
            }),
            _ => {}
        }
    }
    attempts.sort_by(|x, y| x.key().cmp(&y.key()));
    // Whether a `--resume` row lies between rows `j` and `i` (j < i).
    let resumed_between = |j: usize, i: usize| {
        let after = resumes.partition_point(|&r| r <= j);
        resumes.get(after).is_some_and(|&r| r < i)
    };
    let mut gaps: Vec<Problem> = Vec::new();
    for trial in attempts.chunk_by(|x, y| (x.task, x.trial, x.side) == (y.task, y.trial, y.side)) {
        let mut expected = 1u32;
        let mut gap_found = false;
        for rows in trial.chunk_by(|x, y| x.attempt == y.attempt) {
            let mut kept = &rows[0];
            for a in &rows[1..] {
                if kept.outcome == Outcome::Cancelled && resumed_between(kept.row, a.row) {
                    kept = a;
                } else {
                    again.push(Problem {
                        at: at(a.row),
                        what: format!(
                            "task `{}` trial #{} attempt {} is recorded again (first on line {})",
                            a.task,
                            a.trial,
                            a.attempt,
                            kept.row + 1
                        ),
                    });
                }
            }
            if !gap_found && kept.attempt != expected {
                gaps.push(Problem {
                    at: at(kept.row),
                    what: format!(
                        "task `{}` trial #{} has attempt {} but no attempt {expected}",
                        kept.task, kept.trial, kept.attempt
                    ),
                });
                gap_found = true;
            }
            expected = expected.saturating_add(1);
        }
    }
    // As the rows were read: second headers and rows recorded again in file order, then the
    // gaps by trial.
    again.sort_by_key(|p| p.at.line);
    out.problems.extend(again);
    out.problems.extend(gaps);
    drop(attempts);

    // The last row of a ledger without a footer is covered by no hash: nothing shows
    // whether it was edited (an attempt flipped from fail to pass), so the ledger is not
    // sound as it stands (issue 29, V1). A run that was really interrupted is resumed with
    // `gate run --resume`, whose next row covers it.
    if let Some(i) = ledger.uncovered_last_row() {
        out.problems.push(Problem {
            at: at(i),
            what: "not closed, last row not covered: the ledger has no footer after this row, \
                   so no hash vouches for it (an interrupted run: resume it with `gate run --resume`; \
                   `gate report` leaves the row out)"
                .to_string(),
        });
    }
    let footer = ledger.footer();
    let status = footer.map(|f| f.status);
    match status {
        None => out.warnings.push(format!(
            "{end}: no footer: the run did not finish (interrupted or crashed)"
        )),
        Some(RunStatus::Interrupted) => out
            .warnings
            .push(format!("{end}: the run was interrupted; it can be resumed")),
        _ => {}
    }

    let replayed = match replay(std::slice::from_ref(ledger)) {
        Ok(r) => r,
        Err(e) => {
            out.problems.push(problem_from_replay(ledger, e));
            out.problems.sort_by_key(|p| p.at.line);
            return out;
        }
    };
    let by_id: BTreeMap<&str, &TaskReplay> = replayed
        .tasks
        .iter()
        .map(|t| (t.spec.id.as_str(), &**t))
        .collect();

    let mut decided: BTreeSet<&str> = BTreeSet::new();
    for (i, rec) in ledger.records.iter().enumerate() {
        let Row::Decision(d) = &rec.row else { continue };
        let Some(task) = by_id.get(d.task.as_str()) else {
            out.problems.push(Problem {
                at: at(i),
                what: format!(
                    "decision for task `{}`, which the header does not name",
                    d.task
                ),
            });
            continue;
        };
        decided.insert(task.spec.id.as_str());
        if d.verdict != task.verdict || d.counts != task.counts {
            out.disagree(Problem {
                at: at(i),
                what: format!(
                    "decision for task `{}` says {} with {} but the attempt rows recompute to {} with {}",
                    d.task,
                    verdict_words(d.verdict),
                    counts_text(&d.counts),
                    verdict_words(task.verdict),
                    counts_text(&task.counts)
                ),
            });
        } else {
            out.decisions_checked += 1;
        }
    }

    // A run that finished must have decided every task; an interrupted one (or one a harness
    // error stopped) may not have.
    if status == Some(RunStatus::Complete) {
        for t in &replayed.tasks {
            if !decided.contains(t.spec.id.as_str()) {
                out.problems.push(Problem {
                    at: end.clone(),
                    what: format!("task `{}` has no decision row", t.spec.id),
                });
            }
        }
    }

    if let Some(f) = footer
        && f.status != RunStatus::Interrupted
    {
        let i = ledger
            .records
            .iter()
            .rposition(|r| matches!(r.row, Row::Footer(_)))
            .unwrap_or(0);
        let verdict = replayed.verdict();
        let header = ledger.header();
        // The code `gate run` wrote: a partial view (a shard, or a stage after the first run
        // whole) exits 0 unless FAIL is certain; stage 1 of a staged run run whole exits
        // CONTINUE when it leaves a task undecided, as `gate report` over it does.
        let stages = super::stages::status(std::slice::from_ref(ledger), &replayed)
            .ok()
            .flatten();
        let partial =
            header.shard.is_some() || stages.as_ref().is_some_and(|s| s.partial.is_some());
        let code = match stages.and_then(|s| s.next) {
            Some(_) if !partial => crate::exit::CONTINUE,
            _ => crate::exit::for_run(verdict, header.on_inconclusive, partial),
        };
        if f.verdict != verdict || f.exit_code != code {
            out.disagree(Problem {
                at: at(i),
                what: format!(
                    "footer says {} (exit {}) but the attempt rows recompute to {} (exit {code})",
                    verdict_words(f.verdict),
                    f.exit_code,
                    verdict_words(verdict)
                ),
            });
        }
    }

    out.problems.sort_by_key(|p| p.at.line);
    out
}

impl Audit {
    fn disagree(&mut self, p: Problem) {
        self.disagreements.push(p.clone());
        self.problems.push(p);
    }
}

fn problem_from_replay(ledger: &Ledger, e: ReportError) -> Problem {
    let line = match &e {
        ReportError::Conflict { other: at, .. }
        | ReportError::UnknownTask { at, .. }
        | ReportError::ZeroOrdinal { at }
        | ReportError::BadHeader { at, .. }
        | ReportError::ForeignOrdinal { at, .. }
        | ReportError::ImpossibleOrdinal { at, .. } => at.line,
        _ => 1,
    };
    Problem {
        at: Source {
            path: std::sync::Arc::new(ledger.path.clone()),
            line,
        },
        what: format!("cannot replay: {e}"),
    }
}

/// A verdict in the audit's sentences. Not [`super::words::verdict_text`] on purpose: a
/// problem reads "decision … says no verdict (harness error) with …", where a report's
/// verdict cell says HARNESS ERROR.
fn verdict_words(v: Judgement) -> &'static str {
    v.verdict()
        .map_or("no verdict (harness error)", |v| v.as_str())
}

fn counts_text(c: &crate::model::Counts) -> String {
    format!(
        "run {}, passed {}, failed {}, unavailable {}, cancelled {}, excluded {}",
        c.run, c.passed, c.failed, c.unavailable, c.cancelled, c.excluded
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::fixture::{self, outcomes, single};

    fn sound(dir: &std::path::Path) -> Ledger {
        fixture::run(
            &dir.join("l.jsonl"),
            &[(single("t", 10, 1), outcomes(10, &[3]))],
            None,
        )
    }

    #[test]
    fn a_sound_ledger_has_no_problems() {
        let d = tempfile::tempdir().unwrap();
        let a = audit(&sound(d.path()));
        assert_eq!(a.problems, vec![]);
        assert_eq!(a.decisions_checked, 1);
        assert!(a.warnings.is_empty());
    }

    #[test]
    fn shard_ledgers_verify_on_their_own() {
        let d = tempfile::tempdir().unwrap();
        let tasks = [(single("t", 30, 3), outcomes(30, &[2, 9]))];
        for k in 1..=3 {
            let l = fixture::run(
                &d.path().join(format!("s{k}.jsonl")),
                &tasks,
                Some(crate::model::Shard { k, m: 3 }),
            );
            let a = audit(&l);
            assert_eq!(a.problems, vec![], "shard {k}");
        }
    }

    #[test]
    fn an_edited_row_breaks_the_chain_at_the_next_row() {
        let d = tempfile::tempdir().unwrap();
        let l = sound(d.path());
        let text = std::fs::read_to_string(&l.path).unwrap();
        // Line 4 is trial #3 attempt 1, a failure; make it a pass.
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        assert!(lines[3].contains("\"trial\":3"));
        lines[3] = lines[3]
            .replace("\"outcome\":\"fail\"", "\"outcome\":\"pass\"")
            .replace("\"exit_code\":1", "\"exit_code\":0");
        std::fs::write(&l.path, lines.join("\n") + "\n").unwrap();
        let a = audit(&Ledger::read(&l.path).unwrap());
        let first = &a.problems[0];
        assert_eq!(first.at.line, 5, "{first}");
        assert!(first.what.contains("hash chain broken"), "{first}");
        // The decision no longer recomputes either.
        assert!(a.problems.iter().any(|p| p.what.contains("recompute to")));
    }

    #[test]
    fn a_rechained_forgery_is_caught_by_the_replay() {
        let d = tempfile::tempdir().unwrap();
        let l = sound(d.path());
        let path = d.path().join("forged.jsonl");
        let mut w = fixture::writer(&path);
        for rec in &l.records {
            let mut row = rec.row.clone();
            if let Row::Attempt(a) = &mut row
                && a.trial == 3
            {
                std::sync::Arc::make_mut(a).outcome = Outcome::Pass;
            }
            w.append(row).unwrap();
        }
        let forged = Ledger::read(&path).unwrap();
        let a = audit(&forged);
        let first = &a.problems[0];
        let decision_line = forged
            .records
            .iter()
            .position(|r| matches!(r.row, Row::Decision(_)))
            .unwrap() as u64
            + 1;
        assert_eq!(first.at.line, decision_line, "{first}");
        assert!(
            first
                .what
                .contains("says PASS with run 10, passed 9, failed 1"),
            "{first}"
        );
        assert!(
            first
                .what
                .contains("recompute to PASS with run 9, passed 9, failed 0"),
            "{first}"
        );
    }

    #[test]
    fn gaps_in_attempts_and_missing_decisions_are_problems() {
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("l.jsonl");
        let mut w = fixture::writer(&path);
        w.append(Row::Header(
            fixture::header(vec![single("t", 2, 0)], None).into(),
        ))
        .unwrap();
        w.append(Row::Attempt(
            fixture::attempt("t", 1, 1, Outcome::Unavailable).into(),
        ))
        .unwrap();
        w.append(Row::Attempt(
            fixture::attempt("t", 1, 3, Outcome::Pass).into(),
        ))
        .unwrap();
        w.append(Row::Footer(Box::new(crate::ledger::Footer {
            finished_at: "x".into(),
            status: RunStatus::Complete,
            verdict: Judgement::Verdict(crate::model::Verdict::Inconclusive),
            exit_code: 3,
        })))
        .unwrap();
        let a = audit(&Ledger::read(&path).unwrap());
        assert_eq!(a.problems[0].at.line, 3);
        assert!(
            a.problems[0]
                .what
                .contains("has attempt 3 but no attempt 2")
        );
        assert!(
            a.problems
                .iter()
                .any(|p| p.what.contains("no decision row"))
        );
    }

    #[test]
    fn a_torn_tail_is_only_a_warning() {
        let d = tempfile::tempdir().unwrap();
        let l = sound(d.path());
        let mut text = std::fs::read_to_string(&l.path).unwrap();
        text.push_str("{\"seq\":99,\"prev\":\"ab");
        std::fs::write(&l.path, text).unwrap();
        let a = audit(&Ledger::read(&l.path).unwrap());
        assert_eq!(a.problems, vec![]);
        assert!(
            a.warnings[0].contains("unterminated last line"),
            "{:?}",
            a.warnings
        );
    }
}
