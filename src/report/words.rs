//! The words every renderer shares: how a verdict, a reason, a figure or a stage is said, in
//! one place, so that the terminal, Markdown, JUnit and annotation reports say it alike. Pure
//! text from the report model; the renderers call these and never one another, and the model
//! calls none of them.

use crate::model::{Judgement, OnInconclusive, Verdict};

use super::compare_task::CompareReport;
use super::model::{
    EstimateMethod, FailureShape, FaultRisk, Report, Share, Spend, TEST_CASE_FAILED, TaskReport,
    Uncounted,
};

/// A verdict in capitals, `HARNESS ERROR` for none.
pub(crate) fn verdict_text(v: Judgement) -> &'static str {
    v.verdict().map_or("HARNESS ERROR", Verdict::as_str)
}

/// Numbers as a list: `1, 3, 4`.
pub(crate) fn list(xs: &[u64]) -> String {
    xs.iter().map(u64::to_string).collect::<Vec<_>>().join(", ")
}

/// Shard numbers as words: `shard 2`, `shards 1, 3`.
fn shard_list(xs: &[u64]) -> String {
    let mut xs = xs.to_vec();
    xs.sort_unstable();
    xs.dedup();
    format!(
        "shard{} {}",
        if xs.len() == 1 { "" } else { "s" },
        list(&xs)
    )
}

/// The shards present and missing, as the heads of the reports say it: `2 of 3 present
/// (shards 1, 3); missing shard 2`. The count is the number of distinct shards, never a
/// shard's number (review 10, a17: `2 of 2 present; missing 1` read as two present).
pub(crate) fn shards_present(s: &crate::report::replay::ShardCoverage) -> String {
    let mut present = s.present.clone();
    present.sort_unstable();
    present.dedup();
    let mut text = format!(
        "{} of {} present ({})",
        present.len(),
        s.m,
        shard_list(&present)
    );
    if !s.missing.is_empty() {
        text.push_str(&format!("; missing {}", shard_list(&s.missing)));
    }
    text
}

/// What an INCONCLUSIVE-for-now verdict waits for: `shard 1/3 of a sharded run`,
/// `2 of 3 shards present (shards 1, 3)`.
pub(crate) fn waiting_for(report: &Report) -> String {
    match (report.lone_shard(), &report.replay.shards) {
        (Some(s), _) => format!("shard {}/{} of a sharded run", s.k, s.m),
        (None, Some(s)) => {
            let mut present = s.present.clone();
            present.sort_unstable();
            present.dedup();
            format!(
                "{} of {} shards present ({})",
                present.len(),
                s.m,
                shard_list(&present)
            )
        }
        (None, None) => "shards missing".to_string(),
    }
}

/// Graded failures by class, e.g. `timeout 1 · check failed 2`: the classes with failures,
/// or (`zeros`) every class, bar the JUnit test-case class when it has none — only `gate
/// ingest` ledgers can hold those, and elsewhere a 0 would only add noise.
pub(crate) fn failure_classes(f: &FailureShape, zeros: bool) -> String {
    f.by_class()
        .into_iter()
        .filter(|&(name, n)| n > 0 || (zeros && name != TEST_CASE_FAILED))
        .map(|(name, n)| format!("{name} {n}"))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// `total X · mean Y per attempt (N attempts reported)`, as every report prints cost and
/// tokens.
pub(crate) fn spend_text(s: &Spend) -> String {
    format!(
        "total {} · mean {} per attempt ({} attempts reported)",
        number(s.total),
        number(s.mean()),
        s.reporting
    )
}

/// The headline of a staged run that has not decided yet: CONTINUE with the next stage, or
/// one ledger's partial view. None otherwise (a decided staged run reads like any other).
pub(crate) fn staged_line(report: &Report) -> Option<String> {
    let s = report.stages.as_ref()?;
    if let Some(next) = s.next {
        let size = match s.stage_size {
            Some(b) => format!(" (stages of {b} trials)"),
            None => String::new(),
        };
        let running = s.tasks.iter().filter(|t| t.runs_next).count();
        let which = if s.tasks.len() > 1 {
            format!(" for {running} of {} tasks", s.tasks.len())
        } else {
            String::new()
        };
        return Some(format!(
            "CONTINUE: no verdict after stage {} of at most {}{size}; run stage {next}{which}",
            s.through, s.last_stage
        ));
    }
    let (stage, shard) = s.partial?;
    Some(format!(
        "INCONCLUSIVE for now: stage {stage}{} of a staged run; `gate report` over every stage so far decides",
        shard
            .filter(|x| x.m > 1)
            .map(|x| format!(", shard {}/{}", x.k, x.m))
            .unwrap_or_default()
    ))
}

/// The reason line of a task of a staged run that is still undecided and runs in the next
/// stage, e.g. "undecided after stage 1 (9 graded trials, 2 failed); it continues in stage
/// 2": its headline says CONTINUE with this, as the gate line does, rather than
/// INCONCLUSIVE "trials missing" (its later ordinals are the next stage's, not missing).
/// None for any other task, and when the run is not waiting for a next stage.
pub(crate) fn continues_reason(report: &Report, index: usize) -> Option<String> {
    let s = report.stages.as_ref()?;
    let next = s.next?;
    let stage = s.tasks.get(index).filter(|t| t.runs_next)?;
    let task = report.tasks.get(index).filter(|t| t.id() == stage.id)?;
    let c = task.replay.counts;
    Some(format!(
        "undecided after stage {} ({} graded trial{}, {} failed); it continues in stage {next}",
        s.through,
        c.passed + c.failed,
        if c.passed + c.failed == 1 { "" } else { "s" },
        c.failed
    ))
}

/// Where each task of a staged run of several tasks stands, e.g. "`a` PASS in stage 1 ·
/// `b` runs stage 2": the per-task decisions behind the run's. None for one task (the
/// headline says it all) and for a partial view.
pub(crate) fn staged_tasks_line(report: &Report) -> Option<String> {
    let s = report.stages.as_ref().filter(|s| s.partial.is_none())?;
    if s.tasks.len() < 2 {
        return None;
    }
    let parts: Vec<String> = s
        .tasks
        .iter()
        .zip(&report.tasks)
        .map(|(t, r)| match (t.decided_in, s.next) {
            (Some(d), _) => format!("`{}` {} in stage {d}", t.id, verdict_text(r.verdict())),
            (None, Some(n)) if t.runs_next => format!("`{}` runs stage {n}", t.id),
            (None, _) => match (&s.failed_early, s.decided_in) {
                (Some(f), Some(d)) => format!(
                    "`{}` undecided, not run after stage {d} (`{f}` FAILed)",
                    t.id
                ),
                _ => format!("`{}` undecided after stage {}", t.id, t.ran_through),
            },
        })
        .collect();
    Some(parts.join(" · "))
}

/// A compare task's lines in the terminal and Markdown summaries, without indentation:
/// pairs, naive rates, θ, the verdict in words.
pub(crate) fn compare_lines(c: &CompareReport) -> Vec<String> {
    let p = c.pairs;
    let pct = crate::format::percent;
    let mut out = vec![format!(
        "pairs {} · both pass {} · both fail {} · head only fail {} · base only fail {} · void {}",
        p.total, p.both_pass, p.both_fail, p.head_only_fail, p.base_only_fail, p.void
    )];
    if let (Some(h), Some(b)) = (c.head_rate_naive, c.base_rate_naive) {
        out.push(format!("naive rates: head {} · base {}", pct(h), pct(b)));
    }
    if let Some(t) = &c.theta {
        let r = c.odds_ratio_estimate.as_ref();
        let odds = |x: f64| {
            if x.is_finite() {
                format!("{x:.2}")
            } else {
                "∞".to_string()
            }
        };
        out.push(format!(
            "θ = P(head loses | discordant) {:.3} (95% CI {:.3}–{:.3}){} · odds ratio {} (95% CI {}–{}), detects {}",
            t.estimate,
            t.ci95.lo,
            t.ci95.hi,
            if c.method == Some("fixed_n") { ", fixed-n" } else { "" },
            r.map_or("n/a".to_string(), |r| odds(r.estimate)),
            r.map_or("n/a".to_string(), |r| odds(r.ci95.lo)),
            r.map_or("n/a".to_string(), |r| odds(r.ci95.hi)),
            odds(c.odds_ratio)
        ));
    }
    // Beta, said with what it covers: the discordant rule's at θ1 for every base rate, and
    // with the loss route the bound for a regression that is also a fall of `drop` points.
    let mut beta = format!(
        "beta: P(PASS | θ = {:.4}) = {:.4} from the discordant rule, at every base rate and correlation",
        c.theta1, c.lattice_beta
    );
    if let (Some(d), Some(l)) = (c.drop, c.loss_route_beta) {
        beta.push_str(&format!(
            "; at most {:.4} with the loss route when head also falls at least {} points",
            c.lattice_beta + l,
            crate::format::short_ratio(d * 100.0)
        ));
    }
    out.push(beta);
    if let Some(a) = &c.alpha_at_observed {
        out.push(format!(
            "alpha at the observed discordance {} ({} of {} pairs): P(not PASS | head = base) = {:.4} · P(FAIL | head = base) = {:.4} (exact, evaluated at the observed rate, not a bound over rates)",
            pct(a.discordance),
            a.discordant,
            a.pairs,
            a.p_not_pass,
            a.p_fail
        ));
    }
    out.push(c.words.clone());
    out
}

/// Text from a ledger made safe for a terminal: control characters (newlines, escape
/// sequences that could recolour or rewrite the log) are shown escaped, e.g. `\u{1b}`.
pub(crate) fn printable(s: &str) -> String {
    if !s.chars().any(char::is_control) {
        return s.to_string();
    }
    s.chars()
        .map(|c| {
            if c.is_control() {
                c.escape_default().to_string()
            } else {
                c.to_string()
            }
        })
        .collect()
}

/// How a pass rate was computed, in a few words (terminal, JUnit).
pub(crate) fn method_short(m: EstimateMethod) -> &'static str {
    match m {
        EstimateMethod::Stagewise => "exact for the stopping rule",
        EstimateMethod::StagewiseTruncated => "exact for the rule cut off where the run stopped",
        EstimateMethod::FixedN => "Clopper–Pearson",
    }
}

/// How a pass rate was computed, in a sentence fragment (Markdown).
pub(crate) fn method_long(m: EstimateMethod) -> &'static str {
    match m {
        EstimateMethod::Stagewise => {
            "median-unbiased estimate and exact interval for the stopping rule, stage-wise ordering"
        }
        EstimateMethod::StagewiseTruncated => {
            "median-unbiased estimate and exact interval for the rule cut off where the run \
             stopped, before the rule decided; stage-wise ordering"
        }
        EstimateMethod::FixedN => "passed / graded with the Clopper–Pearson interval",
    }
}

/// The trials launched but not counted, e.g. `cancelled 2 in flight at the decision (1.50s,
/// cost 1) · excluded 1 finished after it (750ms)`; None when there are none.
pub(crate) fn uncounted_text(t: &TaskReport) -> Option<String> {
    let part = |u: &Uncounted, label: &str, what: &str| {
        (u.trials > 0).then(|| {
            let mut s = format!("{label} {} {what} ({}", u.trials, seconds(u.seconds));
            for (name, sp) in [("cost", u.cost), ("tokens", u.tokens)] {
                if let Some(sp) = sp {
                    s.push_str(&format!(", {name} {}", number(sp.total)));
                }
            }
            s.push(')');
            s
        })
    };
    let parts: Vec<String> = [
        part(&t.cancelled, "cancelled", "in flight at the decision"),
        part(
            &t.excluded,
            "excluded",
            // Undecided, a trial is excluded only because an earlier ordinal has no row (a
            // shard's or a stage's ledger lacks the others'): a sequential rule stops there.
            if t.replay.decided_at.is_some() {
                "finished after the decision"
            } else {
                "finished behind an earlier trial not counted"
            },
        ),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| parts.join(" · "))
}

/// The warning when the observed unavailable rate makes the printed risk wrong.
pub(crate) fn fault_risk_text(f: &FaultRisk) -> String {
    format!(
        "{} of {} trials ({}) were unavailable: at that rate, with a budget of {}, {} at {} is {}, \
         not the {} stated for no unavailable trials",
        f.unavailable,
        f.drawn,
        percent(f.observed_rate()),
        f.budget,
        f.risk.words(),
        percent(f.rate),
        prob(f.at_observed),
        prob(f.printed)
    )
}

/// Why a graded attempt failed, in words (the JUnit failure and the terminal's first fail).
pub(crate) fn fail_why(a: &crate::ledger::AttemptRow) -> String {
    if a.fault == Some(crate::model::Fault::Timeout) {
        return format!("timed out after {}s", number(a.duration_s));
    }
    match (a.exit_code, a.signal, a.check_exit) {
        (_, Some(sig), _) => format!("run was killed by signal {sig}"),
        (Some(code), _, _) if code != 0 => format!("run exited {code}"),
        (_, _, Some(code)) if code != 0 => format!("check exited {code}"),
        _ if a.detail.result.as_ref().and_then(|r| r.pass) == Some(false) => {
            "the result file said pass: false".to_string()
        }
        _ => a
            .detail
            .reason
            .clone()
            .unwrap_or_else(|| "failed".to_string()),
    }
}

/// The note when timeouts were replaced under `timeout: unavailable`.
pub(crate) fn timeouts_text(n: u64) -> String {
    let (trials, were, failures) = if n == 1 {
        ("trial", "was", "a failure")
    } else {
        ("trials", "were", "failures")
    };
    format!(
        "{n} timed-out {trials} {were} replaced instead of counted as {failures} \
         (`timeout: unavailable`): a regression whose failures are slow hides there"
    )
}

/// Whether the reports show the multiplicity cost: over one task it is that task's own
/// risk, which its section states, so a gate of one plain task (a bare `single: {n, c}`
/// included, whose cost is unknown) shows none.
pub(crate) fn multiplicity_shown(m: &super::model::Multiplicity) -> bool {
    m.known.len() + m.unknown.len() > 1 || !m.families.is_empty()
}

/// What the multiplicity cost is taken over, e.g. `2 tasks and the family of suite s (33
/// test cases, ≤ 0.0499 by its design)`: plain tasks, test cases of suites without a family
/// design, and each suite family with the guarantee its design gives (`id` renders an id).
pub(crate) fn multiplicity_over(
    m: &super::model::Multiplicity,
    id: impl Fn(&str) -> String,
) -> String {
    let plural = |n: u64, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let mut parts = Vec::new();
    if m.tasks > 0 {
        parts.push(plural(m.tasks, "task", "tasks"));
    }
    if m.cases > 0 {
        parts.push(plural(m.cases, "test case", "test cases"));
    }
    for (suite, cases, alpha) in &m.families {
        parts.push(format!(
            "the family of suite {} ({}, ≤ {} by its design)",
            id(suite),
            plural(*cases, "test case", "test cases"),
            prob(*alpha)
        ));
    }
    parts.join(" and ")
}

/// Why the multiplicity cost is a bound, in words: each αᵢ is a task's risk at exactly its
/// healthy rate, and a task (or test case) above it fails less often.
pub(crate) fn multiplicity_bound(m: &super::model::Multiplicity) -> &'static str {
    match (m.tasks > 0, m.cases > 0 || !m.families.is_empty()) {
        (true, true) => {
            "a bound for independent tasks and test cases at or above their healthy rates, reached only if each is exactly at it"
        }
        (false, true) => {
            "a bound for independent test cases at or above their healthy rate, reached only if each is exactly at it"
        }
        _ => {
            "a bound for independent tasks at or above their healthy rates, reached only if each is exactly at it"
        }
    }
}

/// What a task's αᵢ is under a policy, in words.
pub(crate) fn alpha_words(policy: OnInconclusive) -> &'static str {
    match policy {
        OnInconclusive::Fail => "P(not PASS | healthy)",
        OnInconclusive::Pass => "P(FAIL | healthy)",
    }
}

/// A rate as a percentage with one decimal, e.g. `93.3%` (never `100.0%` for a value that
/// is not 1; see [`crate::format::percent`]).
pub(crate) use crate::format::percent;

/// A share as `93.3% (28/30)`, or `n/a (0/0)`.
pub(crate) fn share_text(s: Share) -> String {
    match s.value() {
        Some(v) => format!("{} ({}/{})", percent(v), s.num, s.den),
        None => "n/a (0/0)".to_string(),
    }
}

/// A duration: milliseconds below one second (`48ms`), else seconds with two decimals
/// (`1.25s`), so that fast tasks do not all read `0.00s`.
pub(crate) fn seconds(x: f64) -> String {
    if x < 1.0 {
        format!("{:.0}ms", x * 1000.0)
    } else {
        format!("{x:.2}s")
    }
}

/// A probability with up to four significant decimals, e.g. `0.0421` or `0.9999`.
pub(crate) fn prob(x: f64) -> String {
    format!("{x:.4}")
}

/// A plain number without trailing zeros: four decimals below 100 (`0.0106`, `1.5`), one
/// from 100 on (`1101.9`), where more digits would be noise.
pub(crate) fn number(x: f64) -> String {
    let s = if x.abs() >= 100.0 {
        format!("{x:.1}")
    } else {
        format!("{x:.4}")
    };
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".to_string()
    } else {
        s.to_string()
    }
}

/// A suite task as one family, in one line (terminal and Markdown): its cases, the family
/// risk its design guarantees, and what it ran. `id` renders the (untrusted) task id.
pub(crate) fn family_line(s: &super::model::SuiteSummary, id: impl Fn(&str) -> String) -> String {
    let risk = match (s.alpha, s.target) {
        (Some(a), Some(t)) if s.compare => format!(
            "P(a suite whose every case is as good on head as on base is not PASS) ≤ {} (each case's compare rule at Šidák's share of {t}; independent cases, at the discordance floor)",
            prob(a)
        ),
        (Some(a), Some(t)) => format!(
            "P(a suite of healthy cases is not PASS) ≤ {} (each case at Šidák's share of {t}; independent cases at or above the healthy rate)",
            prob(a)
        ),
        (Some(a), None) => format!("P(a suite of healthy cases is not PASS) ≤ {}", prob(a)),
        // A suite stopped before any run recorded its cases (a harness error on the first
        // run): K is unknown, so nothing was designed yet, whatever the rule.
        _ if s.cases == 0 => {
            "no family design yet: no suite run recorded its test cases".to_string()
        }
        // The rule has a design, but the ledger records none: it ends before the row that
        // would (no suite run's row at all), or an earlier gate wrote it.
        _ if s.undesigned && s.runs == 0 => "no family design recorded: the ledger ends before the row of the suite run that fixed the test cases, so each case is replayed at the plan's alpha (`gate run --resume` runs that suite run again and designs it)"
            .to_string(),
        _ if s.undesigned => {
            "no family design recorded (a ledger of an earlier gate), so each case is replayed at the plan's alpha"
                .to_string()
        }
        _ => "no family design: the rule states no healthy rate, so each case's risk is its own"
            .to_string(),
    };
    format!(
        "{}: {} test case{}, {risk} · {} suite run{}{} · {} test-case run{}",
        id(&s.id),
        s.cases,
        if s.cases == 1 { "" } else { "s" },
        s.runs,
        if s.runs == 1 { "" } else { "s" },
        if s.compare { " (head and base)" } else { "" },
        s.case_runs,
        if s.case_runs == 1 { "" } else { "s" },
    )
}
