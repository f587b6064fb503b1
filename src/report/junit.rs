//! The JUnit XML report (`--junit FILE`), written with quick-junit.
//!
//! # Representation
//!
//! JUnit has four states per test case: success, failure, error and skipped. Every consumer
//! (GitHub test reporters, Jenkins, GitLab) turns the build red on any `<failure>` or
//! `<error>`. A gate's unit of judgement is the *task verdict*, not the trial: a PASSing task
//! may contain failed trials (that is what `c` allows), and those must not turn the report
//! red. So each task becomes one `<testsuite>` holding
//!
//! - one **verdict case** named `TASK: verdict`, the only case that may carry `<failure>` or
//!   `<error>`: `<failure type="FAIL">` for FAIL, `<failure type="INCONCLUSIVE">` for
//!   INCONCLUSIVE under `on_inconclusive: fail`, `<error type="harness_error">` after a harness
//!   error, `<skipped type="INCONCLUSIVE">` for INCONCLUSIVE under `on_inconclusive: pass`,
//!   and success for PASS. The report is therefore red exactly when `gate` exits non-zero for
//!   a verdict (1, 3 or 4);
//! - one **trial case** per recorded trial, named `TASK#007` (zero-padded ordinal, so names
//!   are unique and sort in ordinal order): success when its graded attempt 1 passed,
//!   otherwise `<skipped>` whose `type` is the real outcome (`fail`, `unavailable`,
//!   `cancelled`, `excluded`, `harness_error`) and whose message says why. Skipped is the only
//!   non-success state no consumer treats as red, and it keeps every non-passing trial
//!   visible and countable; stdout/stderr tails of non-passing trials are attached.
//!
//! Plan, counts, p̂ and its intervals, pass@k and pass^k are suite `<properties>`. Every `time`
//! is set: a trial's is the wall time of its attempts, the verdict case's and the suite's are
//! the sum over the task's trials. The verdict case's failure message is the reason alone:
//! its `type` already says FAIL, and reporters that print `type: message` (dorny/test-reporter)
//! would otherwise show "FAIL: FAIL: …".
//!
//! Every test case carries `file` (the plan file) and `line` (the task's line in it), the
//! attributes pytest writes and that reporters such as mikepenz/action-junit-report use to put
//! an annotation on the plan line. Apart from those two extension attributes the output
//! validates against Jenkins' `junit-10.xsd` (which is why test cases carry no properties and
//! no timestamps: that schema has neither).

use quick_junit::{
    NonSuccessKind, Property, Report as JUnitReport, TestCase, TestCaseStatus, TestSuite, XmlString,
};
use std::time::Duration;

use crate::model::{Judgement, OnInconclusive, Outcome, Verdict};
use crate::sampler::Disposition;

use super::model::{Report, TaskReport};
use super::replay::TrialRecord;
use super::words::{
    fail_why, fault_risk_text, method_short, number, timeouts_text, uncounted_text,
};

/// Render the JUnit XML report.
pub fn render(report: &Report) -> std::io::Result<String> {
    let mut xml = Vec::new();
    render_to(report, &mut xml, None)?;
    // `XmlChars` passes only whole UTF-8 characters through.
    Ok(String::from_utf8(xml).expect("the report is UTF-8"))
}

/// Write the JUnit XML report to `w` as it is serialised, not through a copy of it in
/// memory (tens of megabytes for a large suite: issue 30).
/// A failed write is returned as the destination's own error (not wrapped in the
/// serialiser's), as when the report was written whole.
///
/// `scrub`, when given, redacts every text of the report ([`scrub_model`]) after quick-junit
/// has stripped it of ANSI escapes and control characters: a secret split by one of those
/// escapes the redaction of the ledger's text and would be whole again in the XML.
pub fn render_to(
    report: &Report,
    w: &mut dyn std::io::Write,
    scrub: Option<&dyn Fn(&str) -> String>,
) -> std::io::Result<()> {
    let mut chars = XmlChars::new(w);
    let mut model = model(report);
    if let Some(scrub) = scrub {
        scrub_model(&mut model, scrub);
    }
    if let Err(e) = model.serialize(&mut chars) {
        return Err(chars
            .failed
            .take()
            .unwrap_or_else(|| std::io::Error::other(e)));
    }
    std::io::Write::flush(&mut chars)
}

/// The JUnit report's model.
fn model(report: &Report) -> JUnitReport {
    let mut out = JUnitReport::new("gate");
    let mut total = 0.0;
    // A suite of more than 50 cases: its passing cases are one test case each in one test
    // suite of their own (`SUITE: passing cases`), which states the rule and the box once;
    // its other cases keep a test suite each, with their trials (as JSON's `passed_cases`).
    let large = super::listing::large_suites(report);
    let mut passing: std::collections::BTreeMap<&str, TestSuite> = Default::default();
    // Each large suite's passing cases, counted first, so that its test-case list is sized
    // once rather than grown by doubling (a third of the JUnit's memory at 100,000 cases).
    let mut passing_cases: std::collections::BTreeMap<&str, usize> = Default::default();
    for t in &report.tasks {
        let big = crate::ledger::suite_of(t.id()).filter(|s| large.contains_key(s));
        if let Some(s) = big.filter(|_| t.verdict() == Judgement::Verdict(Verdict::Pass)) {
            *passing_cases.entry(s).or_default() += 1;
        }
    }
    for t in &report.tasks {
        let big = crate::ledger::suite_of(t.id()).filter(|s| large.contains_key(s));
        if let Some(s) = big.filter(|_| t.verdict() == Judgement::Verdict(Verdict::Pass)) {
            let r = &t.replay;
            let secs: f64 = r.trials.iter().map(TrialRecord::duration_s).sum();
            total += secs;
            let suite = passing.entry(s).or_insert_with(|| {
                let mut suite = TestSuite::new(crate::plan::suite::passing_cases_suite(s));
                suite
                    .test_cases
                    .reserve_exact(passing_cases.get(s).copied().unwrap_or(0));
                suite.add_properties(shared_properties(report, t));
                suite
            });
            let mut case = TestCase::new(t.id(), TestCaseStatus::success());
            case.set_classname(s);
            locate(&mut case, report, t);
            case.set_time(duration(secs));
            let c = r.counts;
            case.set_system_out(format!(
                "PASS: {}\ntrials: run {}, passed {}, failed {}, unavailable {}, cancelled {}, excluded {}",
                r.reason, c.run, c.passed, c.failed, c.unavailable, c.cancelled, c.excluded
            ));
            suite.add_test_case(case);
            continue;
        }
        let (suite, secs) = suite(report, t);
        total += secs;
        out.add_test_suite(suite);
    }
    for (_, mut suite) in passing {
        let secs: f64 = suite
            .test_cases
            .iter()
            .filter_map(|c| c.time)
            .map(|d| d.as_secs_f64())
            .sum();
        suite.set_time(duration(secs));
        out.add_test_suite(suite);
    }
    out.set_time(duration(total));
    out
}

/// Pass every text of the report through `scrub`: names, class names, messages, types,
/// descriptions, output, properties and extra attributes (keys and values). Each is taken as
/// quick-junit stored it, that is after `XmlString::new` removed ANSI escapes and the C0
/// control characters XML does not allow, which is the text the XML will hold (its escapes
/// are entities, whose decoded text is this text).
fn scrub_model(report: &mut JUnitReport, scrub: &dyn Fn(&str) -> String) {
    let one = |x: &mut XmlString| *x = XmlString::new(scrub(x.as_str()));
    let opt = |x: &mut Option<XmlString>| {
        if let Some(x) = x {
            one(x);
        }
    };
    let props = |p: &mut Vec<Property>| {
        for p in p {
            one(&mut p.name);
            one(&mut p.value);
        }
    };
    let extra = |m: &mut _| scrub_map(m, &one);
    let rerun = |r: &mut quick_junit::TestRerun| {
        opt(&mut r.message);
        opt(&mut r.ty);
        opt(&mut r.stack_trace);
        opt(&mut r.system_out);
        opt(&mut r.system_err);
        opt(&mut r.description);
    };
    opt(&mut report.name);
    for suite in &mut report.test_suites {
        one(&mut suite.name);
        props(&mut suite.properties);
        opt(&mut suite.system_out);
        opt(&mut suite.system_err);
        extra(&mut suite.extra);
        for case in &mut suite.test_cases {
            one(&mut case.name);
            opt(&mut case.classname);
            opt(&mut case.system_out);
            opt(&mut case.system_err);
            extra(&mut case.extra);
            props(&mut case.properties);
            match &mut case.status {
                TestCaseStatus::Success { flaky_runs } => flaky_runs.iter_mut().for_each(rerun),
                TestCaseStatus::NonSuccess {
                    message,
                    ty,
                    description,
                    reruns,
                    ..
                } => {
                    opt(message);
                    opt(ty);
                    opt(description);
                    reruns.runs.iter_mut().for_each(rerun);
                }
                TestCaseStatus::Skipped {
                    message,
                    ty,
                    description,
                } => {
                    opt(message);
                    opt(ty);
                    opt(description);
                }
            }
        }
    }
}

/// [`scrub_model`] over a map of extra attributes (quick-junit does not name its map type).
fn scrub_map<M>(m: &mut M, one: &dyn Fn(&mut XmlString))
where
    M: Default + IntoIterator<Item = (XmlString, XmlString)> + FromIterator<(XmlString, XmlString)>,
{
    *m = std::mem::take(m)
        .into_iter()
        .map(|(mut k, mut v)| {
            one(&mut k);
            one(&mut v);
            (k, v)
        })
        .collect();
}

/// A writer that replaces every character XML 1.0 does not allow ([`xml_chars`]) in the
/// text written through it; a character split across two writes is held until it is whole.
struct XmlChars<'a> {
    inner: &'a mut dyn std::io::Write,
    /// The start of a character whose other bytes have not been written yet.
    pending: Vec<u8>,
    /// The destination's error, when a write to it failed.
    failed: Option<std::io::Error>,
}

impl<'a> XmlChars<'a> {
    fn new(inner: &'a mut dyn std::io::Write) -> XmlChars<'a> {
        XmlChars {
            inner,
            pending: Vec::new(),
            failed: None,
        }
    }
}

impl std::io::Write for XmlChars<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let joined;
        let bytes = if self.pending.is_empty() {
            buf
        } else {
            joined = [std::mem::take(&mut self.pending).as_slice(), buf].concat();
            &joined
        };
        let whole = match std::str::from_utf8(bytes) {
            Ok(s) => s.len(),
            // An incomplete character at the end: kept for the next write.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(e) => return Err(std::io::Error::new(std::io::ErrorKind::InvalidData, e)),
        };
        let text = std::str::from_utf8(&bytes[..whole]).expect("checked above");
        let written = match xml_chars(text) {
            std::borrow::Cow::Borrowed(t) => self.inner.write_all(t.as_bytes()),
            std::borrow::Cow::Owned(t) => self.inner.write_all(t.as_bytes()),
        };
        if let Err(e) = written {
            self.failed = Some(std::io::Error::new(e.kind(), e.to_string()));
            return Err(e);
        }
        self.pending.extend_from_slice(&bytes[whole..]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if !self.pending.is_empty() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                "the report ends inside a character",
            ));
        }
        self.inner.flush()
    }
}

/// Replace every character XML 1.0 does not allow (`Char` in the XML spec) with U+FFFD.
/// quick-junit escapes markup and drops control characters, but a task's output may also hold
/// the noncharacters U+FFFE and U+FFFF, with which no XML parser reads the file. They never
/// carry markup, so replacing them in the serialised text changes only task text.
/// The text is returned as it is when every character is allowed (the usual case).
fn xml_chars(xml: &str) -> std::borrow::Cow<'_, str> {
    let allowed = |c: char| {
        matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
            || c >= '\u{10000}'
    };
    if xml.chars().all(allowed) {
        return std::borrow::Cow::Borrowed(xml);
    }
    std::borrow::Cow::Owned(
        xml.chars()
            .map(|c| if allowed(c) { c } else { '\u{FFFD}' })
            .collect(),
    )
}

fn duration(secs: f64) -> Duration {
    Duration::try_from_secs_f64(secs.max(0.0)).unwrap_or_default()
}

/// A probability or rate as a property value: six decimals, trailing zeros trimmed.
fn prop_num(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    s.to_string()
}

fn suite(report: &Report, t: &TaskReport) -> (TestSuite, f64) {
    let r = &t.replay;
    let id = &r.spec.id;
    let secs: f64 = r.trials.iter().map(TrialRecord::duration_s).sum();
    let mut suite = TestSuite::new(id.as_str());
    suite.set_time(duration(secs));
    suite.add_properties(properties(report, t));

    let mut verdict_case = TestCase::new(format!("{id}: verdict"), verdict_status(report, t));
    verdict_case.set_classname(id.as_str());
    locate(&mut verdict_case, report, t);
    verdict_case.set_time(duration(secs));
    if r.verdict == Judgement::Verdict(Verdict::Pass) {
        verdict_case.set_system_out(format!("PASS: {}\n{}", r.reason, summary_text(t)));
    }
    suite.add_test_case(verdict_case);

    let width = r
        .trials
        .last()
        .map_or(3, |tr| tr.ordinal.to_string().len().max(3));
    for tr in &r.trials {
        let mut case = trial_case(id, width, tr);
        locate(&mut case, report, t);
        suite.add_test_case(case);
    }
    (suite, secs)
}

/// `file=` (the plan file) and `line=` (the task's line, when the ledger records it).
fn locate(case: &mut TestCase, report: &Report, t: &TaskReport) {
    case.extra
        .insert("file".into(), report.replay.plan_path.as_str().into());
    if let Some(line) = t.replay.spec.line {
        case.extra.insert("line".into(), line.to_string().into());
    }
}

fn summary_text(t: &TaskReport) -> String {
    let c = t.replay.counts;
    let mut s = format!(
        "plan: {}\ntrials: run {}, passed {}, failed {}, unavailable {}, cancelled {}, excluded {}",
        t.plan, c.run, c.passed, c.failed, c.unavailable, c.cancelled, c.excluded
    );
    if let Some(pr) = &t.pass_rate {
        s.push_str(&format!(
            "\npass rate: {} (95% CI {}..{}, {}); naive {} (Wilson {}..{})",
            prop_num(pr.estimate),
            prop_num(pr.ci95.lo),
            prop_num(pr.ci95.hi),
            method_short(pr.method),
            prop_num(pr.naive.estimate),
            prop_num(pr.naive.wilson.lo),
            prop_num(pr.naive.wilson.hi)
        ));
    }
    if let Some(text) = uncounted_text(t) {
        s.push_str(&format!("\nuncounted: {text}"));
    }
    if let Some(f) = &t.fault_risk {
        s.push_str(&format!("\nwarning: {}", fault_risk_text(f)));
    }
    if t.timeouts_replaced > 0 {
        s.push_str(&format!("\nnote: {}", timeouts_text(t.timeouts_replaced)));
    }
    s
}

fn verdict_status(report: &Report, t: &TaskReport) -> TestCaseStatus {
    let r = &t.replay;
    let (mut status, ty) = match r.verdict {
        Judgement::Verdict(Verdict::Pass) => return TestCaseStatus::success(),
        Judgement::Verdict(Verdict::Fail) => {
            (TestCaseStatus::non_success(NonSuccessKind::Failure), "FAIL")
        }
        Judgement::Verdict(Verdict::Inconclusive)
            if report.on_inconclusive == OnInconclusive::Pass =>
        {
            (TestCaseStatus::skipped(), "INCONCLUSIVE")
        }
        Judgement::Verdict(Verdict::Inconclusive) => (
            TestCaseStatus::non_success(NonSuccessKind::Failure),
            "INCONCLUSIVE",
        ),
        Judgement::HarnessError => (
            TestCaseStatus::non_success(NonSuccessKind::Error),
            "harness_error",
        ),
    };
    status.set_type(ty);
    // The verdict is in `type` already; repeating it in the message reads "FAIL: FAIL: …".
    status.set_message(r.reason.as_str());
    status.set_description(summary_text(t));
    status
}

fn trial_case(id: &str, width: usize, tr: &TrialRecord) -> TestCase {
    let mut name = format!("{id}#{:0width$}", tr.ordinal);
    // A compare task has two trials per ordinal, one per side of the pair.
    if let Some(side) = tr.first.as_ref().and_then(|a| a.row.side) {
        name = format!("{name} {}", side.as_str());
    }
    let first = tr.first.as_ref().map(|a| &*a.row);
    let passed_and_counted =
        tr.disposition == Disposition::Counted && first.is_some_and(|a| a.outcome == Outcome::Pass);
    let status = if passed_and_counted {
        TestCaseStatus::success()
    } else {
        let (ty, why) = match (tr.disposition, first) {
            (Disposition::Counted, Some(a)) if a.outcome == Outcome::Fail => {
                ("fail", format!("graded fail: {}", fail_why(a)))
            }
            (Disposition::Counted, Some(a)) => (
                "unavailable",
                format!(
                    "unavailable ({}): neither pass nor fail",
                    a.detail.reason.as_deref().unwrap_or("declared fault")
                ),
            ),
            (Disposition::Excluded, Some(a)) => (
                "excluded",
                format!(
                    "finished ({}) beyond the decision point in ordinal order: not counted",
                    outcome_word(a.outcome)
                ),
            ),
            (Disposition::Cancelled, _) => (
                "cancelled",
                "stopped by gate before it finished: not counted".to_string(),
            ),
            (Disposition::HarnessError, Some(a)) => (
                "harness_error",
                format!(
                    "the harness could not run it: {}",
                    a.detail.reason.as_deref().unwrap_or("no reason recorded")
                ),
            ),
            _ => (
                "no_first_attempt",
                "attempt 1 is not in the ledger".to_string(),
            ),
        };
        let mut s = TestCaseStatus::skipped();
        s.set_type(ty);
        s.set_message(format!(
            "{why} (evidence only: the verdict is the `{id}: verdict` case)"
        ));
        s
    };
    let mut case = TestCase::new(name, status);
    case.set_classname(id);
    case.set_time(duration(tr.duration_s()));
    let result = first.and_then(result_line);
    if passed_and_counted && let Some(line) = &result {
        case.set_system_out(line.as_str());
    }
    if !passed_and_counted {
        let mut out = result.unwrap_or_default();
        out.push_str(
            &first
                .map(|a| a.detail.stdout_tail.clone())
                .unwrap_or_default(),
        );
        // After a graded attempt 1, later attempts are the test runner's retries (`gate
        // ingest`); after an unavailable one, gate's own transport retries.
        let kind = if first.is_some_and(|a| a.graded) {
            "retry by the test runner"
        } else {
            "transport retry"
        };
        for later in &tr.later {
            if !out.is_empty() && !out.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&format!(
                "[gate] attempt {}: {} ({kind}: recorded, never promoted)\n",
                later.row.attempt,
                outcome_word(later.row.outcome)
            ));
        }
        if !out.is_empty() {
            case.set_system_out(out);
        }
        if let Some(err) = first
            .map(|a| &a.detail.stderr_tail)
            .filter(|e| !e.is_empty())
        {
            case.set_system_err(err.as_str());
        }
    }
    case
}

/// What attempt 1's result file reported (score, note, gate's warning), as one `[gate]` line
/// for the test case's output; `None` without a result file or with none of these.
fn result_line(a: &crate::ledger::AttemptRow) -> Option<String> {
    let r = a.detail.result.as_ref()?;
    let mut parts = Vec::new();
    if let Some(s) = r.score {
        parts.push(format!("score {}", number(s)));
    }
    if let Some(n) = &r.note {
        parts.push(format!("note: {}", crate::untrusted::one_line(n)));
    }
    if let Some(w) = &r.warning {
        parts.push(format!("warning: {w}"));
    }
    (!parts.is_empty()).then(|| format!("[gate] result file: {}\n", parts.join(" · ")))
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "pass",
        Outcome::Fail => "fail",
        Outcome::Unavailable => "unavailable",
        Outcome::Cancelled => "cancelled",
        Outcome::HarnessError => "harness error",
    }
}

/// An interval as the properties `NAME.lo` and `NAME.hi`.
fn interval(p: &mut Vec<Property>, name: &str, i: crate::stats::estimate::Interval) {
    p.push(Property::new(format!("{name}.lo"), prop_num(i.lo)));
    p.push(Property::new(format!("{name}.hi"), prop_num(i.hi)));
}

/// What a large suite's passing cases share, stated once: their rule, the box, the hashes.
fn shared_properties(report: &Report, t: &TaskReport) -> Vec<Property> {
    let r = &t.replay;
    let mut p = vec![
        Property::new("plan", &*t.plan),
        Property::new(
            "sampling",
            serde_json::to_string(&r.spec.sampling).unwrap_or_default(),
        ),
        Property::new("max_unavailable", r.spec.max_unavailable.to_string()),
    ];
    let walls = report.sandbox();
    if !walls.is_empty() {
        p.push(Property::new("sandbox", walls.join("; ")));
    }
    if let Some(a) = t.alpha {
        p.push(Property::new("alpha", prop_num(a)));
    }
    p.push(Property::new("plan_hash", report.replay.plan_hash.as_str()));
    p.push(Property::new(
        "fixture_hash",
        report.replay.fixture_hash.as_str(),
    ));
    p
}

fn properties(report: &Report, t: &TaskReport) -> Vec<Property> {
    let r = &t.replay;
    let c = r.counts;
    let mut p = vec![
        Property::new(
            "verdict",
            r.verdict.verdict().map_or("HARNESS_ERROR", Verdict::as_str),
        ),
        Property::new("reason", r.reason.as_str()),
        Property::new("plan", &*t.plan),
        Property::new(
            "sampling",
            serde_json::to_string(&r.spec.sampling).unwrap_or_default(),
        ),
        Property::new("max_unavailable", r.spec.max_unavailable.to_string()),
        Property::new("trials.run", c.run.to_string()),
        Property::new("trials.passed", c.passed.to_string()),
        Property::new("trials.failed", c.failed.to_string()),
        Property::new("trials.unavailable", c.unavailable.to_string()),
        Property::new("trials.cancelled", c.cancelled.to_string()),
        Property::new("trials.excluded", c.excluded.to_string()),
        Property::new("trials.graded", t.graded.to_string()),
    ];
    // The walls of the box, where the ledgers record them (none before schema 2).
    let walls = report.sandbox();
    if !walls.is_empty() {
        p.push(Property::new("sandbox", walls.join("; ")));
    }
    if let Some(c) = &t.compare {
        let q = c.pairs;
        for (k, v) in [
            ("pairs.total", q.total),
            ("pairs.both_pass", q.both_pass),
            ("pairs.both_fail", q.both_fail),
            ("pairs.head_only_fail", q.head_only_fail),
            ("pairs.base_only_fail", q.base_only_fail),
            ("pairs.void", q.void),
        ] {
            p.push(Property::new(k, v.to_string()));
        }
        if let Some(th) = &c.theta {
            p.push(Property::new("compare.theta", prop_num(th.estimate)));
            interval(&mut p, "compare.theta.ci95", th.ci95);
        }
        p.push(Property::new("compare.words", c.words.as_str()));
    }
    if let Some(pr) = &t.pass_rate {
        p.push(Property::new("pass_rate", prop_num(pr.estimate)));
        interval(&mut p, "pass_rate.ci95", pr.ci95);
        p.push(Property::new("pass_rate.method", pr.method.as_str()));
        interval(
            &mut p,
            "pass_rate.ci95_clopper_pearson",
            pr.naive.clopper_pearson,
        );
        p.push(Property::new(
            "pass_rate.naive",
            prop_num(pr.naive.estimate),
        ));
        interval(&mut p, "pass_rate.naive.ci95", pr.naive.wilson);
    }
    for k in t.pass_at.iter() {
        p.push(Property::new(
            format!("pass@{}", k.k),
            prop_num(k.pass_at_k),
        ));
        if k.k > 1 {
            p.push(Property::new(
                format!("pass^{}", k.k),
                prop_num(k.pass_hat_k),
            ));
        }
    }
    let s = &t.score;
    for (name, share) in [
        ("first_attempt", s.first_attempt),
        ("within_budget", s.within_budget),
        ("recovery", s.recovery),
    ] {
        if let Some(v) = share.value() {
            p.push(Property::new(name, prop_num(v)));
        }
    }
    if let Some(l) = s.latency {
        p.push(Property::new("latency.p50_s", prop_num(l.p50)));
        p.push(Property::new("latency.p95_s", prop_num(l.p95)));
    }
    p.push(Property::new(
        "retry_passes_refused",
        s.retry_passes_refused.to_string(),
    ));
    for (name, u) in [("cancelled", t.cancelled), ("excluded", t.excluded)] {
        if u.trials > 0 {
            p.push(Property::new(
                format!("not_counted.{name}.duration_s"),
                prop_num(u.seconds),
            ));
            if let Some(c) = u.cost {
                p.push(Property::new(
                    format!("not_counted.{name}.cost"),
                    prop_num(c.total),
                ));
            }
        }
    }
    if t.timeouts_replaced > 0 {
        p.push(Property::new(
            "timeouts_replaced",
            t.timeouts_replaced.to_string(),
        ));
    }
    if let Some(f) = &t.fault_risk {
        p.push(Property::new(
            format!("fault_risk.{}", f.risk.as_str()),
            prop_num(f.at_observed),
        ));
    }
    if let Some(a) = t.alpha {
        p.push(Property::new("alpha", prop_num(a)));
    }
    p.push(Property::new("plan_hash", report.replay.plan_hash.as_str()));
    p.push(Property::new(
        "fixture_hash",
        report.replay.fixture_hash.as_str(),
    ));
    p
}

#[cfg(test)]
mod tests {
    use super::render;
    use crate::model::OnInconclusive;
    use crate::report::Report;
    use crate::report::fixture::{self, outcomes, single};

    /// Parse back with quick-junit and check the representation's promises.
    fn check(report: &Report) -> quick_junit::Report {
        let xml = render(report).unwrap();
        let back = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(back.test_suites.len(), report.tasks.len());
        let red = back.failures + back.errors > 0;
        assert_eq!(
            red,
            report.exit_code() != 0,
            "red iff the gate exits non-zero"
        );
        assert!(back.time.is_some());
        for (suite, task) in back.test_suites.iter().zip(&report.tasks) {
            assert!(suite.time.is_some());
            assert_eq!(suite.name.as_str(), task.id());
            assert_eq!(
                suite.failures + suite.errors > 0,
                report.is_red(task.verdict())
            );
            let mut names: Vec<&str> = suite.test_cases.iter().map(|c| c.name.as_str()).collect();
            assert_eq!(names.len(), task.replay.trials.len() + 1);
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), task.replay.trials.len() + 1, "unique names");
            assert!(suite.test_cases.iter().all(|c| c.time.is_some()));
            // Only the verdict case may be red.
            for case in &suite.test_cases[1..] {
                assert!(matches!(
                    case.status,
                    quick_junit::TestCaseStatus::Success { .. }
                        | quick_junit::TestCaseStatus::Skipped { .. }
                ));
            }
            let prop = |name: &str| {
                suite
                    .properties
                    .iter()
                    .find(|p| p.name.as_str() == name)
                    .map(|p| p.value.as_str().to_string())
            };
            assert_eq!(
                prop("trials.passed"),
                Some(task.replay.counts.passed.to_string())
            );
            assert_eq!(prop("plan").as_deref(), Some(&*task.plan));
        }
        back
    }

    #[test]
    fn pass_and_fail_read_back() {
        let d = tempfile::tempdir().unwrap();
        let back = check(&fixture::sample(d.path()));
        let pass = &back.test_suites[0];
        // book-flight PASSes with two failed trials: skipped, not failures.
        assert_eq!((pass.failures, pass.errors, pass.skipped), (0, 0, 2));
        assert_eq!(pass.test_cases[4].name.as_str(), "book-flight#004");
        assert_eq!(back.test_suites[1].failures, 1);
    }

    #[test]
    fn inconclusive_is_red_only_under_on_inconclusive_fail() {
        let d = tempfile::tempdir().unwrap();
        let shards = fixture::missing_shard(d.path());
        let fail = Report::from_ledgers(&shards, None).unwrap();
        assert_eq!(check(&fail).failures, 1);
        let pass = Report::from_ledgers(&shards, Some(OnInconclusive::Pass)).unwrap();
        let back = check(&pass);
        assert_eq!(back.failures + back.errors, 0);
    }

    #[test]
    fn a_harness_error_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let back = check(&fixture::harness_error(d.path()));
        assert_eq!((back.errors, back.failures), (1, 0));
    }

    #[test]
    fn a_pass_only_run_is_green() {
        let d = tempfile::tempdir().unwrap();
        let l = fixture::run(
            &d.path().join("l.jsonl"),
            &[(single("t", 12, 2), outcomes(12, &[1, 7]))],
            None,
        );
        let back = check(&Report::from_ledgers(&[l], None).unwrap());
        assert_eq!(back.failures + back.errors, 0);
    }
}
