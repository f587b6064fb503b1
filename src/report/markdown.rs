//! The Markdown summary (`--summary FILE`, and `$GITHUB_STEP_SUMMARY`): the gate verdict and a
//! table of tasks, then per task the plan in words, counts, p̂ and its interval, the score
//! vector, what a CI retry setting would have said on the same data (pass@k), and the plan's
//! OC curve as a table and a mermaid chart, each task's detail inside a `<details>` block.
//!
//! Text from the ledger (ids, reasons, notes) is made inert: no raw HTML, no link or image,
//! no autolinked URL (see `cell`). GitHub drops a step summary above 1 MiB entirely, so
//! [`render_capped`] falls back to the verdict table and a pointer to the full file when
//! the whole summary would not fit.

use std::fmt::Write as _;

use crate::ledger::OnInconclusive;
use crate::model::Judgement;
use crate::sampler::Verdict;

use super::model::{EstimateMethod, OcPoint, Report, TaskReport};
use super::words::{
    alpha_words, compare_lines, failure_classes, fault_risk_text, list, method_long, number,
    percent, prob, seconds, share_text, spend_text, staged_line, staged_tasks_line, timeouts_text,
    uncounted_text, waiting_for,
};

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
    for t in &report.tasks {
        task(&mut out, t, report.on_inconclusive, detail);
    }
    out
}

/// The summary in three parts: the verdict, table and run-wide figures; the per-task
/// sections; the ledger lines.
fn parts(report: &Report) -> [String; 3] {
    let mut out = String::new();
    let v = report.verdict();
    if report.continue_with().is_some() {
        // Not a verdict yet: the staged run goes on with its next stage.
        let _ = writeln!(out, "## gate: ⏩ CONTINUE\n");
    } else {
        let _ = writeln!(out, "## gate: {}\n", badge(v));
    }
    for l in &report.replay.ledgers {
        if let Some(b) = &l.chain_break {
            let _ = writeln!(
                out,
                "> ⚠️ **Ledger integrity: chain broken at {}** — figures are not auditable; run `gate verify`.\n",
                cell(b)
            );
        }
    }
    let code = report.exit_code();
    if v == Judgement::HarnessError {
        let _ = writeln!(
            out,
            "A harness error invalidated the run: no verdict is published (exit {code}). \
             Fix the setup and run again.\n"
        );
    } else if report.replay.interrupted_by_signal() {
        out.push_str(
            "The run was interrupted before every task was decided; continue it with \
             `gate run --resume`.\n\n",
        );
    } else if let Some(line) = staged_line(report) {
        let _ = writeln!(out, "{line} (exit {code}).\n");
    } else if report.waiting_for_shards() {
        let what = waiting_for(report);
        let _ = writeln!(
            out,
            "INCONCLUSIVE for now: {what} (exit {code}{}); `gate report` over all shards decides.\n",
            if report.on_inconclusive == OnInconclusive::Pass {
                " under `on_inconclusive: pass`"
            } else {
                ""
            }
        );
    } else if v == Judgement::Verdict(Verdict::Inconclusive)
        && report.on_inconclusive == OnInconclusive::Pass
    {
        let _ = writeln!(
            out,
            "INCONCLUSIVE does not fail this gate (`on_inconclusive: pass`, exit {code}).\n"
        );
    }
    if let Some(line) = staged_tasks_line(report) {
        let _ = writeln!(out, "Stages: {line}.\n");
    }
    match (
        report.replay.interrupted_by_signal(),
        report.exit_override(),
    ) {
        (true, None) => {
            let _ = writeln!(
                out,
                "Plan file {} · interrupted\n",
                code_span(&report.replay.plan_path)
            );
        }
        (true, Some(c)) => {
            let _ = writeln!(
                out,
                "Plan file {} · interrupted, exit code {c}\n",
                code_span(&report.replay.plan_path)
            );
        }
        (false, _) => {
            let _ = writeln!(
                out,
                "Plan file {} · exit code {code}\n",
                code_span(&report.replay.plan_path)
            );
        }
    }

    out.push_str(
        "| task | verdict | plan | run | passed | failed | unavailable | pass rate (95% CI) |\n",
    );
    out.push_str("|---|---|---|---:|---:|---:|---:|---|\n");
    for t in &report.tasks {
        let c = t.replay.counts;
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            cell(t.id()),
            badge(t.verdict()),
            cell(&t.plan),
            c.run,
            c.passed,
            c.failed,
            c.unavailable,
            match (&t.compare, t.pass_rate) {
                // A compare task's counts are its discordant pairs (passed = head wins): its
                // figure is θ, not a pass rate.
                (Some(cmp), _) => cmp.theta.map_or("n/a".to_string(), |th| format!(
                    "θ {:.3} ({:.3}–{:.3}), head losses per discordant pair",
                    th.estimate, th.ci95.lo, th.ci95.hi
                )),
                (None, p) => p.map_or("n/a".to_string(), |p| format!(
                    "{} ({}–{})",
                    percent(p.estimate),
                    percent(p.ci95.lo),
                    percent(p.ci95.hi)
                )),
            }
        );
    }
    out.push('\n');

    let m = &report.multiplicity;
    match m.cost {
        Some(cost) => {
            let _ = write!(
                out,
                "**Multiplicity cost:** a healthy suite fails somewhere with probability {} \
                 (1 − ∏(1 − αᵢ) over {} task{}, αᵢ = {}{})",
                prob(cost),
                m.known.len(),
                if m.known.len() == 1 { "" } else { "s" },
                alpha_words(m.on_inconclusive),
                match m.on_inconclusive {
                    OnInconclusive::Fail => ": an INCONCLUSIVE fails the gate",
                    OnInconclusive::Pass => {
                        ": an INCONCLUSIVE passes under `on_inconclusive: pass`"
                    }
                }
            );
            if !m.unknown.is_empty() {
                let _ = write!(
                    out,
                    "; unknown for {} (no healthy rate recorded), left out",
                    m.unknown
                        .iter()
                        .map(|u| cell(u))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
            }
            out.push_str(".\n\n");
        }
        None => out.push_str("**Multiplicity cost:** unknown: no task records a healthy rate.\n\n"),
    }
    if let Some(s) = &report.replay.shards {
        let _ = write!(out, "**Shards:** {} of {} present", list(&s.present), s.m);
        if !s.missing.is_empty() {
            let _ = write!(out, "; missing {}", list(&s.missing));
        }
        out.push_str(".\n\n");
    }

    let head = std::mem::take(&mut out);
    let tasks = task_sections(report, Detail::Full);
    for line in report.sandbox() {
        let _ = writeln!(out, "<sub>Sandbox: {line}</sub>\n");
    }
    for l in &report.replay.ledgers {
        let _ = writeln!(
            out,
            "<sub>Ledger {} · head SHA-256 `{}` (record it: the hash chain protects every row \
             but the last)</sub>\n",
            code_span(&l.path.display().to_string()),
            l.head_sha256
        );
    }
    [head, tasks, out]
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

/// The last line a task's first harness-error trial wrote (stderr, else stdout): a suite's
/// guard says there which runner is missing and how to install it, which the exit code alone
/// does not.
fn harness_last_words(t: &TaskReport) -> Option<&str> {
    let a = t.replay.trials.iter().find_map(|tr| {
        let a = &tr.first.as_ref()?.row;
        (a.outcome == crate::ledger::Outcome::HarnessError).then_some(a)
    })?;
    let tail = if a.stderr_tail.trim().is_empty() {
        &a.stdout_tail
    } else {
        &a.stderr_tail
    };
    let line = tail.lines().rev().map(str::trim).find(|l| !l.is_empty())?;
    // The task wrote this line: quote a guard's sentence, never a tail-sized line (up to
    // 128 KiB) that would crowd every other task out of the summary's byte budget.
    Some(match line.char_indices().nth(LAST_WORDS_CHARS) {
        Some((end, _)) => &line[..end],
        None => line,
    })
}

/// How much of a harness-error trial's last line the summary quotes, in characters.
const LAST_WORDS_CHARS: usize = 240;

fn task(out: &mut String, t: &TaskReport, policy: OnInconclusive, detail: Detail) {
    let r = &t.replay;
    let c = r.counts;
    let _ = writeln!(out, "### {} — {}\n", cell(t.id()), badge(t.verdict()));
    let _ = writeln!(out, "> {}\n", cell(&r.reason));
    if let Some(line) = harness_last_words(t) {
        let _ = writeln!(out, "> {}\n", cell(line));
    }
    if let Some(c) = &t.compare {
        for line in compare_lines(c) {
            let _ = writeln!(out, "- **Compare:** {}", cell(&line));
        }
        out.push('\n');
    }
    // Outside the fold: a newcomer who sees a test at 80% pass one day and fail the next
    // must find why without opening the detail.
    if let Some(z) = &t.zone {
        let _ = writeln!(
            out,
            "**Zone:** {}\n",
            cell(&crate::format::zone_line(z, t.zone_stated))
        );
    }
    // The detail folds away: a page of many tasks stays readable.
    out.push_str("<details><summary>Plan, estimates, score vector and OC</summary>\n\n");
    let _ = writeln!(
        out,
        "- **Plan:** {}; at most {} unavailable",
        t.plan, r.spec.max_unavailable
    );
    if let Some(a) = t.alpha {
        let at = super::compare::alpha_at(&r.spec, policy)
            .unwrap_or_else(|| format!("healthy rate {}", percent(t.healthy.unwrap_or(f64::NAN))));
        let _ = writeln!(
            out,
            "- **Producer's risk:** {} = {} (exact; {at})",
            alpha_words(policy),
            prob(a),
        );
    }
    let _ = writeln!(
        out,
        "- **Trials:** run {} · passed {} · failed {} · unavailable {} · cancelled {} · excluded {}",
        c.run, c.passed, c.failed, c.unavailable, c.cancelled, c.excluded
    );
    if let Some(text) = uncounted_text(t) {
        let _ = writeln!(out, "- **Not counted:** {text}");
    }
    match &t.pass_rate {
        Some(p) => {
            let _ = writeln!(
                out,
                "- **Pass rate:** {}; 95% CI {}–{} ({})",
                percent(p.estimate),
                percent(p.ci95.lo),
                percent(p.ci95.hi),
                method_long(p.method)
            );
            if p.method != EstimateMethod::FixedN {
                let _ = writeln!(
                    out,
                    "- **Naive p̂:** {} of {} graded = {}; 95% CI {}–{} (Wilson), {}–{} \
                     (Clopper–Pearson); these ignore where the rule stopped and are biased \
                     after a stop",
                    r.counts.passed,
                    t.graded,
                    percent(p.naive.estimate),
                    percent(p.naive.wilson.lo),
                    percent(p.naive.wilson.hi),
                    percent(p.naive.clopper_pearson.lo),
                    percent(p.naive.clopper_pearson.hi),
                );
            }
        }
        None => out.push_str("- **Pass rate:** n/a (no graded trials)\n"),
    }
    if !t.pass_at.is_empty() {
        let parts: Vec<String> = t
            .pass_at
            .iter()
            .map(|p| {
                if p.k == 1 {
                    format!("pass@1 {}", percent(p.pass_at_k))
                } else {
                    format!("pass^{k} {}", percent(p.pass_hat_k), k = p.k)
                }
            })
            .collect();
        let naive: Vec<String> = t
            .pass_at
            .iter()
            .filter(|p| p.k > 1)
            .map(|p| format!("pass^{} {}", p.k, percent(p.naive_pass_hat_k)))
            .collect();
        let _ = write!(
            out,
            "- **Reliability:** {} (pass^k: all k trials pass; from the pass rate above)",
            parts.join(" · ")
        );
        if !naive.is_empty() {
            let _ = write!(
                out,
                "; on the graded trials alone, conditional on where the rule stopped and not \
                 unbiased after a stop: {}",
                naive.join(" · ")
            );
        }
        out.push('\n');
    }
    if let Some(f) = &t.fault_risk {
        let _ = writeln!(
            out,
            "\n> ⚠️ **Unavailable trials:** {}.",
            fault_risk_text(f)
        );
    }
    if t.timeouts_replaced > 0 {
        let _ = writeln!(
            out,
            "\n> ⚠️ **Timeouts replaced:** {}.",
            timeouts_text(t.timeouts_replaced)
        );
    }
    result_files(out, t);
    out.push('\n');

    let s = &t.score;
    out.push_str("| score vector | value |\n|---|---|\n");
    let _ = writeln!(
        out,
        "| first-attempt success | {} |",
        share_text(s.first_attempt)
    );
    let _ = writeln!(
        out,
        "| within-budget success | {} |",
        share_text(s.within_budget)
    );
    let _ = writeln!(out, "| recovery rate | {} |", share_text(s.recovery));
    let f = s.failures;
    let _ = writeln!(out, "| failures | {} |", failure_classes(&f, true));
    if let Some(l) = s.latency {
        let _ = writeln!(
            out,
            "| latency p50 / p95 | {} / {} |",
            seconds(l.p50),
            seconds(l.p95)
        );
    }
    for (name, spend) in [("cost", s.cost), ("tokens", s.tokens)] {
        if let Some(sp) = spend {
            let _ = writeln!(out, "| {name} | {} |", spend_text(&sp));
        }
    }
    let _ = writeln!(out, "| unavailable | {} |", s.unavailable);
    let _ = writeln!(
        out,
        "| retry passes refused promotion | {} |",
        s.retry_passes_refused
    );
    out.push('\n');

    if !t.retry_settings.is_empty() {
        out.push_str("**What a CI retry setting would have said on the same data**\n\n");
        out.push_str(
            "| CI setting | measures | P(green) | naive, on the graded trials |\n|---|---|---:|---:|\n",
        );
        if let Some(p1) = t.pass_at.iter().find(|p| p.k == 1) {
            let _ = writeln!(
                out,
                "| no retries | pass@1 | {} | {} |",
                percent(p1.pass_at_k),
                percent(p1.naive_pass_at_k)
            );
        }
        for r in &t.retry_settings {
            let _ = writeln!(
                out,
                "| retries: {} | pass@{} | {} | {} |",
                r.retries,
                r.retries + 1,
                percent(r.p_green),
                percent(r.naive_p_green)
            );
        }
        out.push('\n');
    }

    oc(out, t, detail);
    out.push_str("</details>\n\n");
}

/// Notes shown per task, and bytes of each.
const NOTES_SHOWN: usize = 3;
const NOTE_BYTES: usize = 200;

/// What the counted trials' result files reported: the mean `score`, the first notes.
fn result_files(out: &mut String, t: &TaskReport) {
    let counted: Vec<(u64, &crate::ledger::TaskResult)> = t
        .replay
        .trials
        .iter()
        .filter(|tr| tr.disposition == super::replay::Disposition::Counted)
        .filter_map(|tr| Some((tr.ordinal, tr.first.as_ref()?.row.result.as_ref()?)))
        .collect();
    let scores: Vec<f64> = counted.iter().filter_map(|(_, r)| r.score).collect();
    if !scores.is_empty() {
        let mean = scores.iter().sum::<f64>() / scores.len() as f64;
        let (lo, hi) = scores
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &s| {
                (lo.min(s), hi.max(s))
            });
        let _ = writeln!(
            out,
            "- **Score (result files):** mean {} over {} trial{} (min {}, max {})",
            number(mean),
            scores.len(),
            if scores.len() == 1 { "" } else { "s" },
            number(lo),
            number(hi)
        );
    }
    let notes: Vec<String> = counted
        .iter()
        .filter_map(|(o, r)| r.note.as_ref().map(|n| (o, n)))
        .take(NOTES_SHOWN)
        .map(|(o, n)| format!("#{o}: {}", cell(&crate::untrusted::clip(n, NOTE_BYTES))))
        .collect();
    if !notes.is_empty() {
        let total = counted.iter().filter(|(_, r)| r.note.is_some()).count();
        let more = if total > notes.len() {
            format!(
                " (first {} of {total}; all are in the JSON report)",
                notes.len()
            )
        } else {
            String::new()
        };
        let _ = writeln!(out, "- **Notes:** {}{more}", notes.join(" · "));
    }
}

fn oc(out: &mut String, t: &TaskReport, detail: Detail) {
    if t.oc.is_empty() || detail == Detail::NoOc {
        return;
    }
    let sequential = t.oc.iter().any(|o| o.inconclusive > 0.0);
    out.push_str("**Operating characteristic** (exact)\n\n");
    if sequential {
        out.push_str(
            "| true success rate | P(PASS) | P(FAIL) | P(INCONCLUSIVE) |\n|---:|---:|---:|---:|\n",
        );
    } else {
        out.push_str("| true success rate | P(PASS) | P(FAIL) |\n|---:|---:|---:|\n");
    }
    let regressed = t
        .replay
        .spec
        .rates
        .map(|r| r.regressed)
        .or(match t.replay.spec.sampling {
            crate::sampler::Sampling::Sequential { regressed, .. } => Some(regressed),
            crate::sampler::Sampling::Single { .. } => None,
        });
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 5e-5);
    for o in &t.oc {
        let mark = if near(t.healthy, o.p) {
            " (healthy)"
        } else if near(regressed, o.p) {
            " (regressed)"
        } else {
            ""
        };
        let _ = write!(
            out,
            "| {}{mark} | {} | {} |",
            percent(o.p),
            prob(o.pass),
            prob(o.fail)
        );
        if sequential {
            let _ = write!(out, " {} |", prob(o.inconclusive));
        }
        out.push('\n');
    }
    out.push('\n');
    if detail != Detail::Full {
        return;
    }
    let title: String = t
        .id()
        .chars()
        .map(|c| {
            if c == '"' {
                '\''
            } else if c.is_control() || crate::untrusted::is_invisible(c) {
                ' '
            } else {
                c
            }
        })
        .collect();
    // Mermaid spreads a line's values evenly along a numeric x-axis, so the chart takes only
    // the OC points on the table's 0.05 grid (the plan's own rates stay in the table above):
    // with categorical labels the designed rates would sit at an even step from 0.95 and 0.99.
    let grid: Vec<&OcPoint> =
        t.oc.iter()
            .filter(|o| ((o.p * 20.0) - (o.p * 20.0).round()).abs() < 1e-9)
            .collect();
    let (Some(first), Some(last)) = (grid.first(), grid.last()) else {
        return;
    };
    let ys: Vec<String> = grid.iter().map(|o| format!("{:.4}", o.pass)).collect();
    // An orange that reads on GitHub's light (#ffffff) and dark (#0d1117) backgrounds; the
    // default palette's first colour is nearly invisible on the dark theme.
    let _ = writeln!(
        out,
        "```mermaid\n%%{{init: {{\"themeVariables\": {{\"xyChart\": {{\"plotColorPalette\": \"#e8590c\"}}}}}}}}%%\nxychart-beta\n    title \"{title}: P(PASS) by true success rate\"\n    x-axis \"true success rate\" {} --> {}\n    y-axis \"P(PASS)\" 0 --> 1\n    line [{}]\n```\n",
        number(first.p),
        number(last.p),
        ys.join(", ")
    );
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::ledger::OnInconclusive;
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
        assert_eq!(super::cell("a|b\nc"), "a\\|b c");
    }

    #[test]
    fn markdown_escapes_task_ids_and_reasons() {
        assert_eq!(
            super::cell("<img src=x>`x`&\r"),
            "&lt;img src=x&gt;&#96;x&#96;&amp; "
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
