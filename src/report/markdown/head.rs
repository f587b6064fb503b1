//! The summary's head and foot: the gate verdict, the task table, the run-wide figures
//! (multiplicity cost, shards), and the sandbox and ledger lines under the task sections.

use std::fmt::Write as _;

use crate::model::{Judgement, OnInconclusive, Verdict};

use super::{Detail, badge, cell, code_span, task_sections};
use crate::report::model::Report;
use crate::report::words::{
    alpha_words, percent, prob, staged_line, staged_tasks_line, waiting_for,
};

/// The summary in three parts: the verdict, table and run-wide figures; the per-task
/// sections; the ledger lines.
pub(super) fn parts(report: &Report) -> [String; 3] {
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
    // A large suite's failures and undecided cases first, its passing cases counted
    // (`listing`), each count said under the table.
    let mut counted = Vec::new();
    for entry in crate::report::listing::entries(report) {
        let t = match entry {
            crate::report::listing::Entry::Task(i) => &report.tasks[i],
            crate::report::listing::Entry::Counted(c) => {
                let _ = writeln!(
                    out,
                    "| {} | {} | | | | | | |",
                    cell(&format!(
                        "{}: {} {}test cases",
                        c.suite,
                        crate::report::listing::thousands(c.passed + c.not_passing),
                        if c.listed > 0 { "more " } else { "" }
                    )),
                    if c.not_passing == 0 {
                        "✅ PASS"
                    } else {
                        "…"
                    }
                );
                counted.push(c);
                continue;
            }
        };
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
    for c in &counted {
        let _ = writeln!(out, "> {}.\n", cell(&c.words()));
    }

    let m = &report.multiplicity;
    match m.cost {
        _ if !crate::report::words::multiplicity_shown(m) => {}
        Some(cost) => {
            let _ = write!(
                out,
                "**Multiplicity cost:** a healthy suite fails somewhere with probability at most {} \
                 (1 − ∏(1 − αᵢ) over {}, αᵢ = {}{}; {})",
                prob(cost),
                crate::report::words::multiplicity_over(m, cell),
                alpha_words(m.on_inconclusive),
                match m.on_inconclusive {
                    OnInconclusive::Fail => ": an INCONCLUSIVE fails the gate",
                    OnInconclusive::Pass => {
                        ": an INCONCLUSIVE passes under `on_inconclusive: pass`"
                    }
                },
                crate::report::words::multiplicity_bound(m)
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
    for s in &report.suites {
        let _ = writeln!(
            out,
            "**Family:** {}.\n",
            crate::report::words::family_line(s, cell)
        );
    }
    if let Some(s) = &report.replay.shards {
        let _ = write!(
            out,
            "**Shards:** {}.\n\n",
            crate::report::words::shards_present(s)
        );
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
