//! The terminal summary: per task, the verdict and reason, the counts, p̂ with its 95%
//! interval, pass@k and pass^k, the score vector; then the gate's verdict and multiplicity
//! cost. Plain text, no colour codes, so it reads the same in a CI log and in a snapshot.
//!
//! A task with failures also shows its first failing trial: why, the log file (only when
//! that file is still on disk — a report recomputed elsewhere must not point at a missing
//! path) and the last lines of its output, already redacted in the ledger.

use std::fmt::Write as _;
use std::path::Path;

use crate::format::zone_line;
use crate::model::{Judgement, OnInconclusive, Outcome, Verdict};
use crate::sampler::Disposition;

use super::model::{Report, ScoreVector, TaskReport};
use super::words::{
    alpha_words, compare_lines, continues_reason, fail_why, failure_classes, fault_risk_text,
    method_short, percent, printable, prob, seconds, share_text, spend_text, staged_line,
    staged_tasks_line, timeouts_text, uncounted_text, verdict_text, waiting_for,
};

impl Report {
    /// The per-task terminal summary (plain text, no colour codes): [`render`]. Defined
    /// here, not in `model.rs`, so the model knows none of its renderers.
    pub fn terminal(&self) -> String {
        render(self)
    }
}

/// Render the terminal summary.
pub fn render(report: &Report) -> String {
    let mut out = String::new();
    // A large suite lists its failures and undecided cases first and counts its passing
    // ones (`listing`): 100,000 cases must not print a million lines.
    for entry in super::listing::entries(report) {
        match entry {
            super::listing::Entry::Task(i) => {
                task(&mut out, &report.tasks[i], continues_reason(report, i));
            }
            super::listing::Entry::Counted(c) => {
                let _ = writeln!(out, "{}", printable(&c.words()));
            }
        }
        out.push('\n');
    }
    gate(&mut out, report);
    // Ids, reasons and output excerpts come from the ledger: no line of the summary may be
    // taken by the Actions runner as a workflow command (docs/trust.md).
    crate::untrusted::log_text(&out)
}

/// The first non-blank line of a message, with ` …` when more lines follow.
fn first_line(text: &str) -> String {
    let mut lines = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("");
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first.to_string()
    }
}

/// One task's lines; `continues` is its reason when it runs in a staged run's next stage
/// ([`continues_reason`]).
fn task(out: &mut String, t: &TaskReport, continues: Option<String>) {
    let r = &t.replay;
    let c = r.counts;
    let (verdict, reason) = match continues {
        Some(reason) => ("CONTINUE", reason),
        None => (verdict_text(t.verdict()), r.reason.clone()),
    };
    // `write!` to a String cannot fail.
    let _ = writeln!(
        out,
        "{}  {verdict}: {}",
        printable(&r.spec.id),
        printable(&reason)
    );
    let _ = writeln!(out, "  plan       {}", t.plan);
    if let Some(c) = &t.compare {
        // A compare task's pass rate would be head's win rate among discordant pairs:
        // its own lines say what the pairs show instead.
        for line in compare_lines(c) {
            let _ = writeln!(out, "  compare    {}", printable(&line));
        }
        first_failure(out, t);
        return;
    }
    if let Some(z) = &t.zone {
        let _ = writeln!(out, "  zone       {}", zone_line(z, t.zone_stated));
    }
    let _ = writeln!(
        out,
        "  trials     run {} · passed {} · failed {} · unavailable {} · cancelled {} · excluded {}",
        c.run, c.passed, c.failed, c.unavailable, c.cancelled, c.excluded
    );
    match &t.pass_rate {
        Some(pr) => {
            let _ = writeln!(
                out,
                "  pass rate  {} (95% CI {}–{}, {}) · naive {}/{} = {} (Wilson {}–{})",
                percent(pr.estimate),
                percent(pr.ci95.lo),
                percent(pr.ci95.hi),
                method_short(pr.method),
                c.passed,
                t.graded,
                percent(pr.naive.estimate),
                percent(pr.naive.wilson.lo),
                percent(pr.naive.wilson.hi)
            );
        }
        None => out.push_str("  pass rate  n/a (no graded trials)\n"),
    }
    if !t.pass_at.is_empty() {
        let parts: Vec<String> = t
            .pass_at
            .iter()
            .map(|p| {
                if p.k == 1 {
                    format!("pass@1 {}", percent(p.pass_at_k))
                } else {
                    format!(
                        "pass@{k} {} · pass^{k} {}",
                        percent(p.pass_at_k),
                        percent(p.pass_hat_k),
                        k = p.k
                    )
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "  pass@k     {} (from the pass rate)",
            parts.join(" · ")
        );
    }
    score(out, &t.score);
    if let Some(text) = uncounted_text(t) {
        let _ = writeln!(out, "  uncounted  {text}");
    }
    if let Some(f) = &t.fault_risk {
        let _ = writeln!(out, "  warning    {}", fault_risk_text(f));
    }
    if t.timeouts_replaced > 0 {
        let _ = writeln!(out, "  note       {}", timeouts_text(t.timeouts_replaced));
    }
    first_failure(out, t);
}

/// Lines of a failing trial's output shown in the summary, and their widest width.
const EXCERPT_LINES: usize = 5;
const EXCERPT_WIDTH: usize = 160;

/// The first counted failure (or harness error) of a task: ordinal, why, log and excerpt.
fn first_failure(out: &mut String, t: &TaskReport) {
    let Some(a) = t.replay.trials.iter().find_map(|tr| {
        let a = &tr.first.as_ref()?.row;
        let failed = (tr.disposition == Disposition::Counted && a.outcome == Outcome::Fail)
            || a.outcome == Outcome::HarnessError;
        failed.then_some(a)
    }) else {
        return;
    };
    let (label, why) = match a.outcome {
        Outcome::Fail => ("first fail", fail_why(a)),
        _ => (
            "harness   ",
            a.detail
                .reason
                .clone()
                .unwrap_or_else(|| "harness error".to_string()),
        ),
    };
    // A message of several lines (pytest's `assert 0.959 < 0.95` then `+  where …`) heads
    // the line with its first: `printable` would spell the rest as literal `\n`s.
    let why = first_line(&why);
    let _ = writeln!(out, "  {label} #{:03}: {}", a.trial, printable(&why));
    if let Some(log) = a.detail.log.as_deref().filter(|l| Path::new(l).is_file()) {
        let _ = writeln!(out, "  log        {}", printable(&shown_path(log)));
    }
    let tail = if a.detail.stderr_tail.trim().is_empty() {
        &a.detail.stdout_tail
    } else {
        &a.detail.stderr_tail
    };
    let lines: Vec<&str> = tail.lines().filter(|l| !l.trim().is_empty()).collect();
    for line in &lines[lines.len().saturating_sub(EXCERPT_LINES)..] {
        let line: String = printable(line).chars().take(EXCERPT_WIDTH).collect();
        let _ = writeln!(out, "    | {line}");
    }
    // Without its mount layer the box refuses to create files in a folder that holds gate's
    // own files (the plan, the ledger's folder): a task that writes beside its plan then fails
    // for the box, not for the agent. Say where it may write, so such a FAIL is not read as a
    // regression.
    // A `writes:` task's trial may move nothing out of a folder where it may make links (no
    // Landlock `REFER` there: review 66), so a rename between two folders of its $TMPDIR fails
    // with EXDEV, which `mv` hides by copying and `os.replace` does not (review 67, 09).
    let cross_device = tail.contains("Invalid cross-device link");
    if cross_device
        || [
            "Permission denied",
            "Read-only file system",
            "Operation not permitted",
        ]
        .iter()
        .any(|m| tail.contains(m))
    {
        let _ = writeln!(
            out,
            "  hint       a write was refused; if the box refused it: gate's own files are read-only to a \
             trial, and without the box's mount layer (the sandbox line says) no file can be created \
             in a folder that holds them; a trial writes in its $TMPDIR, in folders free of gate's \
             files, and in policy.sandbox.writable, and where the task names `writes:`, only in \
             those folders of its own, where it makes no symbolic link and moves in nothing from \
             its $TMPDIR (docs/trust.md, \"The box\")"
        );
    }
    if cross_device {
        let _ = writeln!(
            out,
            "  hint       `Invalid cross-device link` (EXDEV): in a task with `writes:` a trial cannot \
             rename a file or folder from one folder of its $TMPDIR to another, or out of it; \
             copy it instead (`mv` and `shutil.move` do), or write it where it belongs \
             (docs/trust.md, \"The folders the trials write\")"
        );
    }
}

/// A log path relative to the current directory when it lies below it (shorter to read and
/// to paste), else as recorded.
fn shown_path(log: &str) -> String {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| Path::new(log).strip_prefix(cwd).ok().map(Path::to_path_buf))
        .map_or_else(|| log.to_string(), |p| p.display().to_string())
}

fn score(out: &mut String, s: &ScoreVector) {
    // With retries off (the point of a gate), every trial is one attempt and these three
    // shares repeat the pass rate: shown only when some trial made attempts of its own.
    if s.internal_attempts > 0 {
        let _ = writeln!(
            out,
            "  success    first-attempt {} · within budget {} · recovery {}",
            share_text(s.first_attempt),
            share_text(s.within_budget),
            share_text(s.recovery)
        );
        let _ = writeln!(
            out,
            "             ({} graded trial{} retried inside the task: first-attempt counts passes at the \
             first try, within budget passes at any)",
            s.internal_attempts,
            if s.internal_attempts == 1 { "" } else { "s" },
        );
    }
    let f = s.failures;
    let total = f.total();
    if total == 0 {
        out.push_str("  failures   none\n");
    } else {
        let _ = writeln!(out, "  failures   {total}: {}", failure_classes(&f, false));
    }
    if let Some(l) = s.latency {
        let _ = writeln!(
            out,
            "  latency    p50 {} · p95 {}",
            seconds(l.p50),
            seconds(l.p95)
        );
    }
    for (name, spend) in [("cost", s.cost), ("tokens", s.tokens)] {
        if let Some(sp) = spend {
            let _ = writeln!(out, "  {name:<9}  {}", spend_text(&sp));
        }
    }
    let _ = writeln!(
        out,
        "  faults     unavailable {} · retry passes refused promotion {}",
        s.unavailable, s.retry_passes_refused
    );
}

fn gate(out: &mut String, report: &Report) {
    let verdict = report.verdict();
    let code = report.exit_code();
    let policy = match (verdict, report.on_inconclusive) {
        (Judgement::Verdict(Verdict::Inconclusive), OnInconclusive::Pass) => {
            " under on_inconclusive: pass"
        }
        _ => "",
    };
    let tasks = format!(
        "{} task{}",
        report.tasks.len(),
        if report.tasks.len() == 1 { "" } else { "s" }
    );
    // A lost row in the chain makes every figure below unauditable: say so first.
    for l in &report.replay.ledgers {
        if let Some(b) = &l.chain_break {
            let _ = writeln!(
                out,
                "ledger integrity: chain broken at {} — figures are not auditable; run `gate verify`",
                printable(b)
            );
        }
    }
    if report.replay.interrupted_by_signal() {
        // An interrupted `gate run` exits 130/143 whatever the verdict; unless the caller
        // says which, the verdict's exit code would only be `gate report`'s, so it is left out.
        let exit = match report.exit_override() {
            Some(c) => format!("interrupted, exit {c}"),
            None => "interrupted".to_string(),
        };
        let _ = writeln!(out, "gate  {} ({exit}) · {tasks}", verdict_text(verdict));
        out.push_str(
            "  interrupted   the run was stopped before every task was decided; continue it with `gate run --resume`\n",
        );
    } else if let Some(line) = staged_line(report) {
        let _ = writeln!(out, "gate  {line} (exit {code}) · {tasks}");
    } else if report.waiting_for_shards() {
        let what = waiting_for(report);
        let _ = writeln!(
            out,
            "gate  INCONCLUSIVE for now: {what} (exit {code}{policy}; `gate report` over all shards decides) · {tasks}"
        );
    } else {
        let note = if verdict == Judgement::HarnessError {
            ": no verdict is published"
        } else {
            policy
        };
        let _ = writeln!(
            out,
            "gate  {} (exit {code}{note}) · {tasks}",
            verdict_text(verdict)
        );
    }
    if let Some(line) = staged_tasks_line(report) {
        let _ = writeln!(out, "  stages        {line}");
    }
    let m = &report.multiplicity;
    match m.cost {
        _ if !crate::report::words::multiplicity_shown(m) => {}
        Some(cost) => {
            let _ = write!(
                out,
                "  multiplicity  P(a healthy suite fails somewhere) ≤ {} over {}: {} (αᵢ = {}{})",
                prob(cost),
                crate::report::words::multiplicity_over(m, printable),
                crate::report::words::multiplicity_bound(m),
                alpha_words(m.on_inconclusive),
                match m.on_inconclusive {
                    OnInconclusive::Fail => ": an INCONCLUSIVE fails the gate",
                    OnInconclusive::Pass => ": an INCONCLUSIVE passes under on_inconclusive: pass",
                }
            );
            if !m.unknown.is_empty() {
                let _ = write!(
                    out,
                    "; unknown, left out: {}: no healthy rate recorded",
                    printable(&some_ids(&m.unknown))
                );
            }
            out.push('\n');
        }
        None => {
            let _ = writeln!(
                out,
                "  multiplicity  unknown: no task records a healthy rate ({})",
                printable(&some_ids(&m.unknown))
            );
        }
    }
    for s in &report.suites {
        let _ = writeln!(
            out,
            "  family        {}",
            crate::report::words::family_line(s, printable)
        );
    }
    if let Some(s) = &report.replay.shards {
        let _ = writeln!(
            out,
            "  shards        {}",
            crate::report::words::shards_present(s)
        );
    }
    for l in &report.replay.ledgers {
        if l.torn_tail {
            let _ = writeln!(
                out,
                "  warning       {}: an unterminated last row (lost in a crash) was ignored",
                printable(&l.path.display().to_string())
            );
        }
        if let Some(line) = l.left_out {
            let _ = writeln!(
                out,
                "  warning       {}:{line}: not closed (no footer): its last row is not covered by the hash chain and was left out; an interrupted run: resume it with `gate run --resume`",
                printable(&l.path.display().to_string())
            );
        }
    }
    for line in report.sandbox() {
        let _ = writeln!(out, "  sandbox       {line}");
    }
    if let Some(head) = report.head_hash() {
        let _ = writeln!(
            out,
            "  ledger head   sha256 {head} (record it: the hash chain protects every row but the last)"
        );
    }
}

/// At most the first ten of `ids`, then how many more: a line naming the tasks without a
/// healthy rate stays one screen line however many test cases a suite has (review 6, a17:
/// 2,001 cases made it 26,069 characters).
fn some_ids(ids: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut text = ids
        .iter()
        .take(SHOWN)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(
            " and {} more",
            crate::report::listing::thousands(ids.len() - SHOWN)
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use crate::model::Judgement;
    use crate::report::Report;
    use crate::report::fixture;

    #[test]
    fn pass_and_fail() {
        let d = tempfile::tempdir().unwrap();
        insta::assert_snapshot!(fixture::sample(d.path()).terminal());
    }

    #[test]
    fn uncounted_trials_unavailable_rate_and_replaced_timeouts() {
        let d = tempfile::tempdir().unwrap();
        let r = Report::from_ledgers(&[fixture::faults(d.path())], None).unwrap();
        insta::assert_snapshot!(
            r.terminal()
                .replace(&d.path().display().to_string(), "[TMP]")
        );
    }

    #[test]
    fn an_interrupted_run_does_not_claim_an_exit_code() {
        use crate::ledger::{Footer, Ledger, Row, RunStatus};
        use crate::model::Outcome;
        use crate::model::Verdict;
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("l.jsonl");
        let mut w = fixture::writer(&path);
        w.append(Row::Header(
            fixture::header(vec![fixture::single("t", 10, 1)], None).into(),
        ))
        .unwrap();
        w.append(Row::Attempt(
            fixture::attempt("t", 1, 1, Outcome::Pass).into(),
        ))
        .unwrap();
        w.append(Row::Attempt(
            fixture::attempt("t", 2, 1, Outcome::Cancelled).into(),
        ))
        .unwrap();
        w.append(Row::Footer(Box::new(Footer {
            finished_at: "x".into(),
            status: RunStatus::Interrupted,
            verdict: Judgement::Verdict(Verdict::Inconclusive),
            exit_code: 130,
        })))
        .unwrap();
        let r = Report::from_ledgers(&[Ledger::read(&path).unwrap()], None).unwrap();
        let text = r.terminal();
        assert!(
            text.contains("gate  INCONCLUSIVE (interrupted) · 1 task"),
            "{text}"
        );
        assert!(text.contains("gate run --resume"), "{text}");
        assert!(
            text.contains(
                "t  INCONCLUSIVE: interrupted: no verdict is certain after 1 graded trial\n"
            ),
            "{text}"
        );
        let md = crate::report::markdown::render(&r);
        assert!(md.contains("· interrupted"), "{md}");
    }

    #[test]
    fn control_characters_in_task_ids_and_reasons_are_escaped() {
        use crate::ledger::{Ledger, Row};
        use crate::model::Outcome;
        let d = tempfile::tempdir().unwrap();
        let path = d.path().join("l.jsonl");
        let mut w = fixture::writer(&path);
        let id = "evil\u{1b}[2J\nok  PASS";
        w.append(Row::Header(
            fixture::header(vec![fixture::single(id, 3, 0)], None).into(),
        ))
        .unwrap();
        let mut a = fixture::attempt(id, 1, 1, Outcome::HarnessError);
        a.detail.reason = Some("bell\u{7} and\rreturn".to_string());
        w.append(Row::Attempt(a.into())).unwrap();
        let r = Report::from_ledgers(&[Ledger::read(&path).unwrap()], None).unwrap();
        let text = r.terminal();
        assert!(!text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\r'));
        assert!(
            text.starts_with("evil\\u{1b}[2J\\nok  PASS  HARNESS ERROR: "),
            "{text}"
        );
        assert!(text.contains("bell\\u{7} and\\rreturn"), "{text}");
    }

    #[test]
    fn missing_shard_and_harness_error() {
        let d = tempfile::tempdir().unwrap();
        let r = Report::from_ledgers(&fixture::missing_shard(d.path()), None).unwrap();
        insta::assert_snapshot!("missing_shard", r.terminal());
        let text = fixture::harness_error(d.path()).terminal();
        insta::assert_snapshot!(
            "harness_error",
            text.replace(&d.path().display().to_string(), "[TMP]")
        );
    }
}
