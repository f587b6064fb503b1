//! The Markdown summary (`--summary FILE`, and `$GITHUB_STEP_SUMMARY`): the gate verdict and a
//! table of tasks, then per task the plan in words, counts, p̂ and its interval, the score
//! vector, what a CI retry setting would have said on the same data (pass@k), and the plan's
//! OC curve as a table and a mermaid chart, each task's detail inside a `<details>` block.
//!
//! Text from the ledger (ids, reasons, notes) is made inert: no raw HTML, no link or image,
//! no autolinked URL (see `cell`). GitHub drops a step summary above 1 MiB entirely, so
//! [`render_capped`] falls back to the verdict table and a pointer to the full file when
//! the whole summary would not fit.
//!
//! The page is built in `head.rs` (the verdict, the task table, run-wide figures and the
//! ledger lines) and `task.rs` (one task's section); this file budgets it and holds the
//! escapes every part uses.

mod head;
mod task;

use std::fmt::Write as _;

use crate::model::{Judgement, Verdict};

use super::model::Report;
use head::parts;
use task::task;

/// Largest step summary gate appends: GitHub's limit is 1 MiB per step (1,048,576 bytes);
/// the margin leaves room for what other steps' tools append to the same page.
pub const STEP_SUMMARY_LIMIT: usize = 1_000_000;

/// How much per-task detail a summary holds. A step summary over its byte budget drops
/// detail in this order — the OC charts, then the OC tables, then every task's section —
/// and keeps the verdict table, saying what it left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Detail {
    /// Everything.
    Full,
    /// No mermaid OC chart.
    NoCharts,
    /// No OC table or chart.
    NoOc,
}

impl Detail {
    fn left_out(self) -> &'static str {
        match self {
            Detail::Full => "nothing",
            Detail::NoCharts => "the OC charts",
            Detail::NoOc => "the OC tables and charts",
        }
    }
}

/// Render the summary.
pub fn render(report: &Report) -> String {
    let [head, tasks, foot] = parts(report);
    head + &tasks + &foot
}

/// Render the summary in at most `limit` bytes (by its actual size, whatever the number of
/// tasks and the length of their ids): whole if it fits; else without the OC charts, then
/// without the OC tables, then without any per-task section (the verdict table and a
/// pointer to `full`, the file holding the whole summary, or to the command that writes
/// it); with thousands of tasks, as many rows of the verdict table as fit. Each cut says
/// what it left out.
pub fn render_capped(report: &Report, limit: usize, full: Option<&str>) -> String {
    let [head, tasks, foot] = parts(report);
    let whole = head.len() + tasks.len() + foot.len();
    if whole <= limit {
        return head + &tasks + &foot;
    }
    let where_all = match full {
        Some(path) => format!("everything is in {}", code_span(path)),
        None => "write all of it with `gate report LEDGER --summary FILE`".to_string(),
    };
    for detail in [Detail::NoCharts, Detail::NoOc] {
        let note = format!(
            "> The full summary ({whole} bytes) is larger than a step summary may be: this one leaves out {}; {where_all}.\n\n",
            detail.left_out()
        );
        if head.len() + note.len() + foot.len() < limit {
            let tasks = task_sections(report, detail);
            if head.len() + note.len() + tasks.len() + foot.len() <= limit {
                return head + &note + &tasks + &foot;
            }
        }
    }
    let pointer = match full {
        Some(path) => format!(
            "> The full summary ({whole} bytes) is larger than a step summary may be: this one leaves out every task's section; per-task detail is in {}.\n\n",
            code_span(path)
        ),
        None => format!(
            "> The full summary ({whole} bytes) is larger than a step summary may be: this one leaves out every task's section; write it with \
             `gate report LEDGER --summary FILE`.\n\n"
        ),
    };
    if head.len() + pointer.len() + foot.len() <= limit {
        return head + &pointer + &foot;
    }
    // Even the table is too long (thousands of tasks): keep the rows that fit.
    let mut out = String::new();
    let mut lines = head.lines().peekable();
    let budget = limit.saturating_sub(pointer.len() + 200);
    let mut dropped = 0usize;
    while let Some(line) = lines.next() {
        if out.len() + line.len() + 1 > budget {
            dropped = 1 + lines.filter(|l| l.starts_with("| ")).count();
            break;
        }
        out.push_str(line);
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "\n… {dropped} more lines of the task table left out.\n"
    );
    out + &pointer
}

/// Every task's section at this level of detail.
fn task_sections(report: &Report, detail: Detail) -> String {
    let mut out = String::new();
    // The tasks the table lists, in its order: a large suite's passing cases are counted
    // there, not given a section.
    for entry in super::listing::entries(report) {
        if let super::listing::Entry::Task(i) = entry {
            let continues = crate::report::words::continues_reason(report, i);
            task(
                &mut out,
                &report.tasks[i],
                report.on_inconclusive,
                detail,
                continues,
            );
        }
    }
    out
}

fn badge(v: Judgement) -> &'static str {
    match v {
        Judgement::Verdict(Verdict::Pass) => "✅ PASS",
        Judgement::Verdict(Verdict::Fail) => "❌ FAIL",
        Judgement::Verdict(Verdict::Inconclusive) => "⚠️ INCONCLUSIVE",
        Judgement::HarnessError => "🛑 HARNESS ERROR",
    }
}

/// Text from a ledger made inert in Markdown: [`crate::untrusted::markdown`], the one
/// Markdown escape.
fn cell(s: &str) -> String {
    crate::untrusted::markdown(s)
}

/// Text as an inline code span; a backtick or a control character inside cannot be shown
/// in one, so such text falls back to escaped plain text.
fn code_span(s: &str) -> String {
    if s.chars()
        .any(|c| c == '`' || c.is_control() || crate::untrusted::is_invisible(c))
    {
        cell(s)
    } else {
        format!("`{s}`")
    }
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::model::OnInconclusive;
    use crate::report::Report;
    use crate::report::fixture;

    #[test]
    fn pass_and_fail() {
        let d = tempfile::tempdir().unwrap();
        let md = render(&fixture::sample(d.path()));
        insta::assert_snapshot!(md.replace(&d.path().display().to_string(), "[TMP]"));
    }

    #[test]
    fn inconclusive_under_on_inconclusive_pass_with_a_missing_shard() {
        let d = tempfile::tempdir().unwrap();
        let r = Report::from_ledgers(
            &fixture::missing_shard(d.path()),
            Some(OnInconclusive::Pass),
        )
        .unwrap();
        insta::assert_snapshot!(render(&r).replace(&d.path().display().to_string(), "[TMP]"));
    }

    #[test]
    fn uncounted_trials_unavailable_rate_and_replaced_timeouts() {
        let d = tempfile::tempdir().unwrap();
        let r = Report::from_ledgers(&[fixture::faults(d.path())], None).unwrap();
        insta::assert_snapshot!(render(&r).replace(&d.path().display().to_string(), "[TMP]"));
    }

    #[test]
    fn harness_error() {
        let d = tempfile::tempdir().unwrap();
        let md = render(&fixture::harness_error(d.path()));
        insta::assert_snapshot!(md.replace(&d.path().display().to_string(), "[TMP]"));
    }

    #[test]
    fn table_cells_escape_pipes() {
        assert_eq!(super::cell("a|b\nc"), "a\\|b\\nc");
    }

    #[test]
    fn markdown_escapes_task_ids_and_reasons() {
        assert_eq!(
            super::cell("<img src=x>`x`&\r"),
            "&lt;img src=x&gt;&#96;x&#96;&amp;\\r"
        );
        assert_eq!(super::code_span("plans/a.yaml"), "`plans/a.yaml`");
        assert_eq!(super::code_span("a`b"), "a&#96;b");
    }

    #[test]
    fn markdown_does_not_render_task_links() {
        let c = super::cell("[x](https://evil.example) ![](https://evil.example/p.png)");
        // Every bracket is escaped, so no `[text](url)` or `![alt](src)` can form.
        let unescaped = c
            .char_indices()
            .filter(|&(i, ch)| (ch == '[' || ch == ']') && !c[..i].ends_with('\\'))
            .count();
        assert_eq!(unescaped, 0, "{c}");
        assert!(!c.contains("https://"), "{c}");
        assert!(!c.contains("<"), "{c}");
    }

    /// Regression: a 500-task plan produced a 1.05 MB summary, which GitHub drops whole.
    #[test]
    fn step_summary_stays_under_the_limit_for_any_plan() {
        let d = tempfile::tempdir().unwrap();
        // 40 tasks against a limit a third of their size stand for 500 against 1 MiB (the
        // fixture's OC tables make a larger report slow to build in a debug test).
        let tasks: Vec<_> = (0..40)
            .map(|i| {
                (
                    fixture::single(&format!("task-{i:04}"), 20, 3),
                    fixture::outcomes(20, &[4]),
                )
            })
            .collect();
        let l = fixture::run(&d.path().join("ledger.jsonl"), &tasks, None);
        let r = Report::from_ledgers(&[l], None).unwrap();
        let full = render(&r);
        // A budget that holds the sections without their OC: the OC goes, the rest stays.
        let [head, _, foot] = super::parts(&r);
        let no_oc = super::task_sections(&r, super::Detail::NoOc);
        let limit = head.len() + no_oc.len() + foot.len() + 300;
        assert!(limit < full.len());
        let capped = super::render_capped(&r, limit, Some("summary.md"));
        assert!(
            capped.contains("### task-0039"),
            "the task sections are kept"
        );
        assert!(
            !capped.contains("Operating characteristic"),
            "their OC is not"
        );
        assert!(capped.len() <= limit, "{} > {limit}", capped.len());
        assert!(
            capped.contains("| task-0039 | ✅ PASS |"),
            "every verdict row is kept"
        );
        assert!(capped.contains("everything is in `summary.md`"), "{capped}");
        assert!(
            capped.contains("leaves out the OC"),
            "says what it left out"
        );
        // A budget that holds only the table: every task's section goes.
        let table_only = super::render_capped(&r, head.len() + foot.len() + 400, Some("s.md"));
        assert!(
            table_only.contains("per-task detail is in `s.md`"),
            "{table_only}"
        );
        assert!(!table_only.contains("### task-0000"));
        // Far more tasks than the table can hold: the table itself is cut, still in bounds.
        let tiny = super::render_capped(&r, 3_000, None);
        assert!(tiny.len() <= 3_000, "{}", tiny.len());
        assert!(tiny.contains("more lines of the task table left out"));
        assert!(tiny.contains("gate report LEDGER --summary FILE"));
        // A summary that fits is unchanged.
        assert_eq!(super::render_capped(&r, usize::MAX, None), full);
    }

    /// Issue 18, break 9: the step summary of 500 tasks with 40-character ids was 1.16 MB,
    /// over GitHub's 1 MiB (GitHub then drops it whole). It is budgeted by its actual size:
    /// detail goes first (charts, then OC tables, then per-task sections), the verdict table
    /// stays, and the summary says what it left out.
    #[test]
    fn step_summary_of_500_and_2000_tasks_with_long_ids_stays_under_1_mib() {
        let d = tempfile::tempdir().unwrap();
        for (count, kept) in [(500usize, "OC"), (2000, "every task's section")] {
            let tasks: Vec<_> = (0..count)
                .map(|i| {
                    (
                        fixture::single(&format!("agent-regression-suite-case-{i:012}"), 3, 0),
                        fixture::outcomes(3, &[]),
                    )
                })
                .collect();
            let l = fixture::run(&d.path().join(format!("l{count}.jsonl")), &tasks, None);
            let r = Report::from_ledgers(&[l], None).unwrap();
            assert_eq!(r.tasks[0].id().len(), 40);
            let full = render(&r);
            let capped = super::render_capped(&r, super::STEP_SUMMARY_LIMIT, Some("s.md"));
            assert!(
                capped.len() <= super::STEP_SUMMARY_LIMIT,
                "{count}: {}",
                capped.len()
            );
            assert!(capped.len() < 1 << 20);
            if full.len() > super::STEP_SUMMARY_LIMIT {
                assert!(
                    capped.contains(&format!(
                        "leaves out {}",
                        if kept == "OC" { "the OC" } else { kept }
                    )),
                    "{count}"
                );
            }
            let last = format!(
                "| agent-regression-suite-case-{:012} | ✅ PASS |",
                count - 1
            );
            assert!(capped.contains(&last), "{count}: every verdict row is kept");
        }
    }
}
