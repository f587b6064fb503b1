//! DeepEval's test run file (`deepeval test run FILE --repeat N` saves
//! `test_run_<timestamp>.json` in `DEEPEVAL_RESULTS_FOLDER`) → first-attempt trials.
//!
//! Read from DeepEval 4.x's real output (scripts/gen-eval-fixtures.sh): `deepeval test run`
//! is pytest with pytest-repeat, so `.testCases[]` holds one record per repeat, named like
//! pytest's JUnit (`test_agent[refund-2-3]`: the parameter id, then repeat i of M), with
//! `success` (every metric met its threshold) and `order`. The test is
//! `{file stem}::{name without the repeat}`, as the pytest JUnit reader names it, so the JUnit
//! file and the test run of one eval judge the same tests. A test that raised before
//! `assert_test` is in pytest's JUnit but not in this file: a missing repeat index is
//! refused, with a pointer to the JUnit.
//!
//! **Every array that can hold a result is read, or the file is refused.** DeepEval's
//! `TestRun` keeps multi-turn cases in `.conversationalTestCases[]` (same `name`, `success`,
//! `metricsData`, and per-turn `metricsData` in older versions), read here as tests like
//! `.testCases[]`. A top-level key this reader does not know, holding a non-empty array or
//! object, is refused rather than ignored: a later DeepEval could put results there. A case
//! passes only when its `success` is `true` *and* none of its metrics (nor its turns')
//! failed or errored: DeepEval's `success` leaves out metrics marked `flaky`, so a failed
//! flaky metric does not fail the case, but an errored one (not judged at all) does.
//! DeepEval's own `testFailed` count is checked: fewer failures read than it reports is
//! refused.

use std::collections::HashMap;

use serde::Deserialize;

use super::{Attempt, ParseError, Trial, json_nan, split_repeat};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    #[serde(default)]
    test_file: Option<String>,
    #[serde(default)]
    test_cases: super::capped::Capped<Case, super::capped::Tests>,
    #[serde(default)]
    conversational_test_cases: super::capped::Capped<Case, super::capped::Tests>,
    #[serde(default)]
    test_failed: Option<u64>,
    /// Every other top-level key, checked by [`unread_results`].
    #[serde(flatten)]
    rest: serde_json::Map<String, serde_json::Value>,
}

/// Top-level keys of DeepEval's `TestRun` (deepeval/test_run/test_run.py) that hold no
/// per-case result: aggregates, settings and scalars. Anything else non-empty is refused.
const KNOWN_KEYS: &[&str] = &[
    "metricsScores",
    "traceMetricsScores",
    "hyperparameters",
    "prompts",
    "identifier",
    "testPassed",
    "runDuration",
    "evaluationCost",
    "datasetAlias",
    "datasetId",
    "official",
];

/// The first top-level key this reader does not know whose value could hold results (a
/// non-empty array or object).
fn unread_results(rest: &serde_json::Map<String, serde_json::Value>) -> Option<&str> {
    rest.iter()
        .find(|(k, v)| {
            !KNOWN_KEYS.contains(&k.as_str())
                && match v {
                    serde_json::Value::Array(a) => !a.is_empty(),
                    serde_json::Value::Object(o) => !o.is_empty(),
                    _ => false,
                }
        })
        .map(|(k, _)| k.as_str())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Case {
    name: String,
    success: Option<bool>,
    #[serde(default)]
    order: Option<u64>,
    #[serde(default)]
    run_duration: Option<f64>,
    #[serde(default)]
    metrics_data: Vec<Metric>,
    /// A conversational case's turns; older DeepEval versions give each its own metrics.
    #[serde(default)]
    turns: Vec<Turn>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Turn {
    #[serde(default)]
    metrics_data: Option<Vec<Metric>>,
}

impl Case {
    /// The case's metrics and its turns'.
    fn metrics(&self) -> impl Iterator<Item = &Metric> {
        self.metrics_data.iter().chain(
            self.turns
                .iter()
                .flat_map(|t| t.metrics_data.iter().flatten()),
        )
    }
}

#[derive(Deserialize)]
struct Metric {
    name: String,
    #[serde(default)]
    success: Option<bool>,
    /// DeepEval leaves a flaky metric out of the case's `success`.
    #[serde(default)]
    flaky: bool,
    #[serde(default)]
    score: Option<f64>,
    #[serde(default)]
    threshold: Option<f64>,
    #[serde(default)]
    reason: Option<String>,
    #[serde(default)]
    error: Option<String>,
}

/// What a test run holds.
pub struct TestRun {
    /// First-attempt trials, each test's in repeat order.
    pub trials: Vec<Trial>,
    /// Records without a result.
    pub skipped: u64,
    /// The test id of each such record.
    pub skipped_tests: Vec<String>,
    /// What the reader said about the file.
    pub notes: Vec<String>,
}

/// Read a `test_run_*.json`.
pub fn read(text: &str) -> Result<TestRun, ParseError> {
    let text = json_nan::to_null(text);
    let file: File = super::capped::from_str(&text).map_err(|e| ParseError {
        line: e.line() as u64,
        column: e.column() as u64,
        reason: super::capped::reason(&e, |e| {
            format!("not a DeepEval test run (`.testCases[]`): {e}")
        }),
    })?;
    let stem = file
        .test_file
        .as_deref()
        .map(|f| {
            let base = f.rsplit('/').next().unwrap_or(f);
            base.strip_suffix(".py").unwrap_or(base).to_string()
        })
        .unwrap_or_default();
    if let Some(key) = unread_results(&file.rest) {
        return Err(ParseError {
            line: 1,
            column: 1,
            reason: format!(
                "DeepEval test run has a `{}` this reader does not know, which could hold results; \
                 gate refuses a file it cannot read whole rather than judge part of it. Read pytest's \
                 JUnit instead (`deepeval test run FILE -- --junitxml=junit.xml`)",
                crate::untrusted::one_line(key)
            ),
        });
    }
    // Each array's `order` counts from 0: single-turn cases first, then conversational ones.
    let mut cases = file.test_cases;
    cases.sort_by_key(|c| c.order.unwrap_or(u64::MAX));
    let mut conversational = file.conversational_test_cases;
    conversational.sort_by_key(|c| c.order.unwrap_or(u64::MAX));
    cases.extend(conversational);
    let mut trials = Vec::with_capacity(cases.len());
    let mut skipped = 0;
    let mut skipped_tests = Vec::new();
    // Per test: the repeat indices seen and M.
    let mut seen: HashMap<String, (Vec<u64>, u64)> = HashMap::new();
    let mut occurrences: HashMap<String, u64> = HashMap::new();
    for c in &cases {
        let (base, repeat, of) = match split_repeat(&c.name) {
            Some((b, i, m)) if m >= 2 => (b, Some(i), m),
            _ => (c.name.clone(), None, 0),
        };
        let test = if stem.is_empty() {
            base.clone()
        } else {
            format!("{stem}::{base}")
        };
        let Some(success) = c.success else {
            // DeepEval leaves `success` null only for a case with no metric data: a case that
            // has some and no `success` says two things, and its failed metric would be left
            // out as a skip (review 7, c13).
            if c.metrics().next().is_some() {
                return Err(ParseError {
                    line: 1,
                    column: 1,
                    reason: format!(
                        "test case `{}` has metric data but no `success` (null or absent): DeepEval leaves \
                         `success` empty only for a case with no metric, so gate will not read it as skipped",
                        crate::untrusted::one_line(&test)
                    ),
                });
            }
            skipped += 1;
            skipped_tests.push(test);
            continue;
        };
        let n = occurrences.entry(test.clone()).or_default();
        *n += 1;
        if let Some(i) = repeat {
            let e = seen.entry(test.clone()).or_insert((Vec::new(), of));
            e.0.push(i);
        }
        let failed: Vec<String> = c
            .metrics()
            .filter(|m| m.error.is_some() || (m.success != Some(true) && !m.flaky))
            .map(|m| match (&m.error, m.score, m.threshold) {
                (Some(e), _, _) => format!("{}: error: {e}", m.name),
                (None, Some(s), Some(t)) => format!(
                    "{}: score {s} below threshold {t}{}",
                    m.name,
                    m.reason
                        .as_deref()
                        .map(|r| format!(" ({r})"))
                        .unwrap_or_default()
                ),
                _ => format!("{}: not met", m.name),
            })
            .collect();
        // DeepEval's `success` and its metrics must agree: a metric that failed or errored
        // under a case said to succeed is a failure, never a pass.
        let passed = success && failed.is_empty();
        trials.push(Trial {
            test,
            repeat: repeat.unwrap_or(*n),
            attempts: vec![Attempt {
                passed,
                unavailable: false,
                duration_s: c.run_duration.unwrap_or(0.0),
                message: if passed {
                    String::new()
                } else if failed.is_empty() {
                    "failed".into()
                } else {
                    failed.join("; ").chars().take(500).collect()
                },
                detail: String::new(),
            }],
        });
    }
    for (test, (mut got, m)) in seen {
        got.sort_unstable();
        got.dedup();
        if let Some(missing) = (1..=m).find(|i| got.binary_search(i).is_err()) {
            return Err(ParseError {
                line: 1,
                column: 1,
                reason: format!(
                    "`{test}` has no record of repeat {missing} of {m}: a test that fails before `assert_test` \
                     (an exception in the agent) is left out of DeepEval's test run, so its failures would be \
                     missed. Read pytest's JUnit instead (`deepeval test run FILE --repeat {m} -- --junitxml=junit.xml`)"
                ),
            });
        }
    }
    let failures = trials.iter().filter(|t| !t.attempts[0].passed).count() as u64;
    if let Some(reported) = file.test_failed
        && failures < reported
    {
        return Err(ParseError {
            line: 1,
            column: 1,
            reason: format!(
                "DeepEval reports {reported} failed test case(s) (`testFailed`) but gate reads {failures}: \
                 some failures are in records this reader does not read. Read pytest's JUnit instead \
                 (`deepeval test run FILE -- --junitxml=junit.xml`)"
            ),
        });
    }
    trials.sort_by(|a, b| a.test.cmp(&b.test).then(a.repeat.cmp(&b.repeat)));
    // Keep the tests in their first-recorded order, each in repeat order.
    let mut first: HashMap<String, usize> = HashMap::new();
    for (i, c) in cases.iter().enumerate() {
        let base = split_repeat(&c.name).map_or(c.name.clone(), |(b, _, _)| b);
        let test = if stem.is_empty() {
            base
        } else {
            format!("{stem}::{base}")
        };
        first.entry(test).or_insert(i);
    }
    trials.sort_by_key(|t| (first.get(&t.test).copied().unwrap_or(usize::MAX), t.repeat));
    let notes = if skipped > 0 {
        vec![format!(
            "{skipped} test case record(s) without a `success` were left out"
        )]
    } else {
        Vec::new()
    };
    Ok(TestRun {
        trials,
        skipped,
        skipped_tests,
        notes,
    })
}
