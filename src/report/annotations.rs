//! GitHub Actions workflow commands (printed when `GITHUB_ACTIONS=true`): an `::error` per task
//! that FAILs or hit a harness error and a `::warning` per INCONCLUSIVE task, then a
//! `::warning` per task whose printed risk the observed unavailable rate makes wrong or whose
//! timeouts were replaced (`timeout: unavailable`), pointing at the plan file and the task's
//! line, errors first, at most [`MAX`] (GitHub shows only the first ten annotations of a step
//! anyway).
//!
//! Escaping follows the runner's own rules (actions/toolkit `command.ts`): in the message,
//! `%`, `\r` and `\n`; in property values also `:` and `,`.

use crate::model::{Judgement, Verdict};

use super::model::{Report, TaskReport};
use super::words::{fault_risk_text, timeouts_text};

/// Most annotations printed.
pub const MAX: usize = 10;

/// The annotation lines, without trailing newlines.
pub fn render(report: &Report) -> Vec<String> {
    // A shard's or a stage's partial view, and a staged run that continues, are no verdict:
    // an INCONCLUSIVE warning there would sit next to the real verdict on every PR. A FAIL
    // a partial view already makes certain still annotates.
    let undecided_view = report.is_partial() || report.continue_with().is_some();
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    let mut risks = Vec::new();
    for t in &report.tasks {
        let r = &t.replay;
        if let Some(f) = &t.fault_risk {
            risks.push(line(
                report,
                t,
                "warning",
                "unavailable trials",
                &fault_risk_text(f),
            ));
        }
        if t.timeouts_replaced > 0 {
            risks.push(line(
                report,
                t,
                "warning",
                "timeouts replaced",
                &timeouts_text(t.timeouts_replaced),
            ));
        }
        let (list, command, label) = match r.verdict {
            Judgement::Verdict(Verdict::Pass) => continue,
            Judgement::Verdict(Verdict::Fail) => (&mut errors, "error", "FAIL"),
            Judgement::Verdict(Verdict::Inconclusive) if undecided_view => continue,
            Judgement::Verdict(Verdict::Inconclusive) => (&mut warnings, "warning", "INCONCLUSIVE"),
            Judgement::HarnessError => (&mut errors, "error", "harness error"),
        };
        list.push(line(
            report,
            t,
            command,
            label,
            &format!("{} ({})", r.reason, t.plan),
        ));
    }
    errors
        .into_iter()
        .chain(warnings)
        .chain(risks)
        .take(MAX)
        .collect()
}

/// One workflow command about a task, at its plan line, titled `gate: ID LABEL`.
fn line(report: &Report, t: &TaskReport, command: &str, label: &str, message: &str) -> String {
    let mut props = vec![format!(
        "file={}",
        escape_property(&report.replay.plan_path)
    )];
    if let Some(line) = t.replay.spec.line {
        props.push(format!("line={line}"));
    }
    // Ids come from the task and its result files: control bytes (ESC sequences the log viewer
    // renders, NUL) are shown escaped, as the terminal shows them, before the runner's own
    // escaping (review 7, c02).
    let title = format!("gate: {} {label}", t.replay.spec.id);
    props.push(format!(
        "title={}",
        escape_property(&crate::untrusted::one_line(&title))
    ));
    let message: Vec<_> = message
        .split('\n')
        .map(crate::untrusted::one_line)
        .collect();
    format!(
        "::{command} {}::{}",
        props.join(","),
        escape_data(&message.join("\n"))
    )
}

/// Escape a message.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escape a property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;
    use crate::report::fixture::{self, outcomes, single};

    #[test]
    fn escaping_follows_the_runner() {
        assert_eq!(escape_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(escape_property("gate: a,b%"), "gate%3A a%2Cb%25");
    }

    #[test]
    fn review7_c02_control_bytes_of_an_id_reach_no_annotation_raw() {
        let d = tempfile::tempdir().unwrap();
        let mut report = fixture::sample(d.path());
        let t = report
            .tasks
            .iter_mut()
            .find(|t| t.replay.spec.id == "refund")
            .expect("refund");
        t.replay.spec.id = "p::T\u{1}\u{8}\u{1b}[2J\u{0}\u{9b}X".into();
        let lines = render(&report);
        assert_eq!(lines.len(), 1);
        assert!(
            !lines[0].chars().any(char::is_control),
            "raw control byte in {:?}",
            lines[0]
        );
        assert!(
            lines[0].contains("title=gate%3A p%3A%3AT\\u{1}\\u{8}\\u{1b}[2J\\u{0}\\u{9b}X FAIL")
        );
    }

    #[test]
    fn one_error_per_failing_task_pointing_at_the_plan_line() {
        let d = tempfile::tempdir().unwrap();
        let lines = render(&fixture::sample(d.path()));
        assert_eq!(lines.len(), 1);
        assert_eq!(
            lines[0],
            "::error file=plans/demo.yaml,line=7,title=gate%3A refund FAIL::LLR 3.753 reached the \
             FAIL bound 2.890 after 4 trials (3 failed) (Wald's sequential test of 90% vs 60% (alpha 0.05, \
             beta 0.1), at most 40 trials)"
                .replace("90% vs 60%", "90%25 vs 60%25")
        );
    }

    #[test]
    fn a_wrong_risk_and_replaced_timeouts_are_warnings_after_the_verdicts() {
        let d = tempfile::tempdir().unwrap();
        let r = Report::from_ledgers(&[fixture::faults(d.path())], None).unwrap();
        let lines = render(&r);
        assert_eq!(lines.len(), 2, "{lines:?}");
        assert!(lines[0].starts_with(
            "::warning file=plans/demo.yaml,line=7,title=gate%3A pay unavailable trials::3 of 30 trials (10.0%25) were unavailable"
        ), "{}", lines[0]);
        assert!(lines[1].starts_with(
            "::warning file=plans/demo.yaml,line=7,title=gate%3A pay timeouts replaced::1 timed-out trial was replaced"
        ), "{}", lines[1]);
    }

    #[test]
    fn inconclusive_is_a_warning_and_there_are_at_most_ten() {
        let d = tempfile::tempdir().unwrap();
        let mut tasks = Vec::new();
        for i in 0..12 {
            // Two failures of (10, 1): FAIL; the last task stops undecided.
            tasks.push((single(&format!("t{i:02}"), 10, 1), outcomes(10, &[1, 2])));
        }
        tasks.push((single("open", 10, 1), outcomes(2, &[])));
        let l = fixture::run(&d.path().join("l.jsonl"), &tasks, None);
        let r = Report::from_ledgers(&[l], None).unwrap();
        let lines = render(&r);
        assert_eq!(lines.len(), MAX);
        assert!(lines.iter().all(|l| l.starts_with("::error ")));
        tasks.truncate(1);
        tasks.push((single("open", 10, 1), outcomes(2, &[])));
        let l = fixture::run(&d.path().join("m.jsonl"), &tasks, None);
        let lines = render(&Report::from_ledgers(&[l], None).unwrap());
        assert_eq!(lines.len(), 2);
        assert!(lines[1].starts_with(
            "::warning file=plans/demo.yaml,line=7,title=gate%3A open INCONCLUSIVE::trials missing"
        ));
    }
}
