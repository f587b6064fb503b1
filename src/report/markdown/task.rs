//! One task's section of the summary: its verdict and reason, then, folded away, the plan,
//! counts, pass-rate estimate, reliability, result files, score vector, what a CI retry
//! setting would have said, and the OC as a table and a mermaid chart.

use std::fmt::Write as _;

use crate::model::OnInconclusive;

use super::{Detail, badge, cell};
use crate::report::model::{EstimateMethod, OcPoint, TaskReport};
use crate::report::words::{
    alpha_words, compare_lines, failure_classes, fault_risk_text, method_long, number, percent,
    prob, seconds, share_text, spend_text, timeouts_text, uncounted_text,
};

/// The last line a task's first harness-error trial wrote (stderr, else stdout): a suite's
/// guard says there which runner is missing and how to install it, which the exit code alone
/// does not.
fn harness_last_words(t: &TaskReport) -> Option<&str> {
    let a = t.replay.trials.iter().find_map(|tr| {
        let a = &tr.first.as_ref()?.row;
        (a.outcome == crate::model::Outcome::HarnessError).then_some(a)
    })?;
    let tail = if a.detail.stderr_tail.trim().is_empty() {
        &a.detail.stdout_tail
    } else {
        &a.detail.stderr_tail
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

/// Append task `t`'s section at this level of detail.
/// `continues` is the task's reason when it runs in a staged run's next stage
/// ([`crate::report::words::continues_reason`]): its headline says CONTINUE, as the gate's.
pub(super) fn task(
    out: &mut String,
    t: &TaskReport,
    policy: OnInconclusive,
    detail: Detail,
    continues: Option<String>,
) {
    let r = &t.replay;
    let c = r.counts;
    let (badge, reason) = match continues {
        Some(reason) => ("⏩ CONTINUE", reason),
        None => (badge(t.verdict()), r.reason.clone()),
    };
    let _ = writeln!(out, "### {} — {badge}\n", cell(t.id()));
    let _ = writeln!(out, "> {}\n", cell(&reason));
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
        let at = crate::report::compare_task::alpha_at(&r.spec, policy)
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
            .map(|p| format!("pass^{} {}", p.k, percent(p.naive.pass_hat_k)))
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
                percent(p1.naive.pass_at_k)
            );
        }
        for r in t.retry_settings.iter() {
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
        .filter(|tr| tr.disposition == crate::sampler::Disposition::Counted)
        .filter_map(|tr| Some((tr.ordinal, tr.first.as_ref()?.row.detail.result.as_deref()?)))
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
            crate::model::Sampling::Sequential { regressed, .. } => Some(regressed),
            crate::model::Sampling::Single { .. } => None,
        });
    let near = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() < 5e-5);
    for o in t.oc.iter() {
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
    let title = chart_title(t.id());
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

/// A task id as a mermaid chart's title. The title sits in a code block, where
/// [`crate::untrusted::markdown`]'s entities would show as typed, and mermaid renders some
/// markup of its own in it: so only letters, digits, blanks and `_ - . , : / @ + =` are
/// kept and every other character becomes `_` (no `<img onerror>`, no `[x](https://…)`, no
/// `</details>`, no backtick that could close the block, no `"` that ends the title).
fn chart_title(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_alphanumeric() && !crate::untrusted::is_invisible(c)
                || matches!(c, ' ' | '_' | '-' | '.' | ',' | ':' | '/' | '@' | '+' | '=')
            {
                c
            } else {
                '_'
            }
        })
        .collect()
}
