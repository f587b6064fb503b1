//! GitHub Actions workflow commands (printed when `GITHUB_ACTIONS=true`): an `::error` per task
//! that FAILs or hit a harness error and a `::warning` per INCONCLUSIVE task, pointing at the
//! plan file and the task's line, errors first, at most [`MAX`] (GitHub shows only the first
//! ten annotations of a step anyway).
//!
//! Escaping follows the runner's own rules (actions/toolkit `command.ts`): in the message,
//! `%`, `\r` and `\n`; in property values also `:` and `,`.

use crate::sampler::Verdict;

use super::model::Report;

/// Most annotations printed.
pub const MAX: usize = 10;

/// The annotation lines, without trailing newlines.
pub fn render(report: &Report) -> Vec<String> {
    let mut errors = Vec::new();
    let mut warnings = Vec::new();
    for t in &report.tasks {
        let r = &t.replay;
        let (list, command, label) = match r.verdict {
            Some(Verdict::Pass) => continue,
            Some(Verdict::Fail) => (&mut errors, "error", "FAIL"),
            Some(Verdict::Inconclusive) => (&mut warnings, "warning", "INCONCLUSIVE"),
            None => (&mut errors, "error", "harness error"),
        };
        let mut props = vec![format!(
            "file={}",
            escape_property(&report.replay.plan_path)
        )];
        if let Some(line) = r.spec.line {
            props.push(format!("line={line}"));
        }
        props.push(format!(
            "title={}",
            escape_property(&format!("gate: {} {label}", r.spec.id))
        ));
        list.push(format!(
            "::{command} {}::{}",
            props.join(","),
            escape_data(&format!("{} ({})", r.reason, t.plan))
        ));
    }
    errors.into_iter().chain(warnings).take(MAX).collect()
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
