//! The Jest-shaped JSON report that `jest --json --outputFile=FILE` and Vitest's
//! `--reporter=json --outputFile=FILE` write → trials.
//!
//! From Jest 30's and Vitest 4's real output: `.testResults[]` holds one record per test
//! file (`name` an absolute path, `status`, `message`) and its `.assertionResults[]` one per
//! test as it finally ended (`ancestorTitles`, `title`, `status`, `failureMessages`,
//! `duration` in ms). What tells a retry:
//! - **Jest** writes `invocations` (how many times `jest.retryTimes` ran the test): a test
//!   that failed once and passed says `status: "passed"`, `invocations: 2`, and **empty
//!   `failureMessages` and `retryReasons`** — only the count shows the failed first attempt.
//! - **Vitest** writes no count: a test that passed on `--retry` says `status: "passed"` and
//!   keeps **one failure message per failed attempt** in `failureMessages`. A passed test
//!   with any message failed its first attempt. (An attempt that fails several soft
//!   assertions leaves several messages, so the number of retries read from them can be
//!   too high; the grade of the first attempt cannot be wrong.)
//! - A test file that fails to load (a syntax error, a missing module) has `status:
//!   "failed"`, a `message` and no assertion results: its tests did not run and are not in the
//!   report, so such a report is refused, as is an interrupted Jest run (`wasInterrupted`).
//! - A test file that failed although none of its tests did (an `afterAll` hook threw: Jest
//!   says "Test suite failed to run", Vitest puts the hook's error in `message`) is refused
//!   too: its tests' passes are all the report shows, and the failure would be missed. Vitest
//!   keeps no word of a failed `beforeAll` (its tests say `skipped`, the file `failed`).
//! - Vitest's `--bail` lists the files it did not reach with no test, and the tests it did not
//!   reach in a file as `pending` (a test it skips says `skipped`): such a file is refused, such
//!   a test left out with a note.

use crate::ingest::capped::{Capped, Groups, Tests};
use std::collections::HashSet;

use serde::Deserialize;

use super::{Error, Report, first_line, only_trial, parse, relative_to_common_dir, retried};
use crate::ingest::{Count, Trial, Writer};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct File {
    test_results: Capped<Suite, Groups>,
    /// When the run started (milliseconds): the run's identity.
    #[serde(default)]
    start_time: serde_json::Value,
    #[serde(default)]
    was_interrupted: Option<bool>,
    #[serde(default)]
    open_handles: Option<serde_json::Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Suite {
    name: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    message: String,
    #[serde(default)]
    assertion_results: Capped<Assertion, Tests>,
    /// When the file's tests started and ended (milliseconds): the run's identity.
    #[serde(default)]
    start_time: serde_json::Value,
    #[serde(default)]
    end_time: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Assertion {
    #[serde(default)]
    ancestor_titles: Vec<String>,
    title: String,
    status: String,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    failure_messages: Vec<String>,
    #[serde(default)]
    invocations: Option<Count>,
}

/// Whether a JSON document's top-level keys are Jest's or Vitest's JSON report.
pub fn looks_like(keys: &[String]) -> bool {
    let has = |k: &str| keys.iter().any(|x| x == k);
    has("testResults") && has("numTotalTests")
}

/// Read one report: one run of the suite. Returns the writer too (Jest or Vitest: Jest's
/// report has `wasInterrupted`, `openHandles` and per-test `invocations`, Vitest's none).
pub fn read(text: &str) -> Result<(Report, Writer), Error> {
    let file: File = parse(text, "a Jest or Vitest JSON report (`.testResults[]`)")?;
    // `invocations` is Jest's alone (Vitest never writes it): a report that carries it is
    // Jest's even when `wasInterrupted` and `openHandles` were stripped, so that a retried
    // test's failed first attempt is never read past as Vitest's.
    let jest = file.was_interrupted.is_some()
        || file.open_handles.is_some()
        || file
            .test_results
            .iter()
            .any(|s| s.assertion_results.iter().any(|a| a.invocations.is_some()));
    let writer = if jest {
        Writer::JestJson
    } else {
        Writer::VitestJson
    };
    if file.was_interrupted == Some(true) {
        return Err(Error::Refused(
            "the Jest run was interrupted (`wasInterrupted: true`): tests that had not ended are not in the \
             report. Run the suite to its end"
                .into(),
        ));
    }
    if let Some(s) = file
        .test_results
        .iter()
        .find(|s| s.status == "failed" && s.assertion_results.is_empty())
    {
        return Err(Error::Refused(format!(
            "test file `{}` failed to run ({}): its tests are not in the report, so their failures would be \
             missed. Fix the file, then run the suite again",
            s.name,
            // Jest heads the message "● Test suite failed to run"; the cause follows.
            first_line(
                &s.message
                    .lines()
                    .filter(|l| !l.contains("Test suite failed to run"))
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        )));
    }
    // A file that failed although none of its tests did failed outside them: an `afterAll`
    // (or `beforeAll` under Vitest) hook threw. The runner counts the file failed; its tests'
    // passes would otherwise be all the ledger saw.
    if let Some(s) = file
        .test_results
        .iter()
        .find(|s| s.status == "failed" && !s.assertion_results.iter().any(|a| a.status == "failed"))
    {
        return Err(Error::Refused(format!(
            "test file `{}` failed outside its tests ({}): none of its tests failed, so the failure would be \
             missed. Fix it, then run the suite again",
            s.name,
            match first_line(
                &s.message
                    .lines()
                    .filter(|l| !l.contains("Test suite failed to run"))
                    .collect::<Vec<_>>()
                    .join("\n")
            ) {
                // Vitest keeps no word of a failed `beforeAll`: its tests say `skipped`.
                m if m.is_empty() =>
                    "the report keeps no message: a hook such as `beforeAll` threw".into(),
                m => m,
            }
        )));
    }
    // A file listed with no test in it did not run: Vitest's `--bail` stopped the run first.
    if let Some(s) = file
        .test_results
        .iter()
        .find(|s| s.assertion_results.is_empty())
    {
        return Err(Error::Refused(format!(
            "test file `{}` has no test in the report: the run stopped before it (`--bail`), so its tests' \
             failures would be missed. Run the suite to its end, without `--bail`",
            s.name
        )));
    }
    let names: Vec<&str> = file.test_results.iter().map(|s| s.name.as_str()).collect();
    let rel = relative_to_common_dir(&names);
    let mut seen = HashSet::new();
    let mut trials = Vec::new();
    let mut skipped = 0;
    let mut skipped_tests = Vec::new();
    let mut not_run = 0;
    let mut retried_tests = 0;
    let mut spent = 0;
    for (suite, rel) in file.test_results.iter().zip(rel) {
        for a in &suite.assertion_results {
            let mut path = a.ancestor_titles.clone();
            path.push(a.title.clone());
            let test = format!("{rel}::{}", path.join(" > "));
            let passed = match a.status.as_str() {
                "passed" => true,
                "failed" => false,
                // Vitest says `skipped` for a test it skips and `pending` for one that a
                // `--bail` stopped before it ran.
                "pending" if !jest => {
                    skipped += 1;
                    not_run += 1;
                    skipped_tests.push(test);
                    continue;
                }
                _ => {
                    // pending, skipped, todo, disabled: did not run.
                    skipped += 1;
                    skipped_tests.push(test);
                    continue;
                }
            };
            let retries = match (jest, a.invocations) {
                (true, Some(k)) if k.0 == 0 => {
                    // A test that ran zero times has no result: never a first-attempt pass.
                    return Err(Error::Refused(format!(
                        "test `{test}` says `status: \"{}\"` but `invocations: 0`: a test that never ran \
                         has no result to grade",
                        a.status
                    )));
                }
                (true, Some(k)) => k.0 - 1,
                (true, None) => {
                    return Err(Error::Refused(format!(
                        "test `{test}` has no `invocations`: this Jest report does not say how many times \
                         `jest.retryTimes` ran it, so a test that passed on a retry would look like a \
                         first-attempt pass. Use Jest 26 or later, whose `--json` report records it"
                    )));
                }
                // Vitest: a message per failed attempt; the last attempt's own when it failed.
                (false, _) => {
                    let failed_before = Count::new(
                        a.failure_messages.len() as u64,
                        &format!("the number of failure messages of test `{test}`"),
                    )
                    .map_err(Error::Refused)?
                    .0;
                    if passed {
                        failed_before
                    } else {
                        failed_before.saturating_sub(1)
                    }
                }
            };
            // Bounded over the whole file before the attempts are built.
            super::super::spend_retries(&mut spent, retries).map_err(Error::Refused)?;
            // Jest says how many times it ran a test; Vitest's messages say it only of a test
            // that passed after failing (a failed one's several messages may be one attempt's
            // soft assertions), so only those are said to have been retried.
            if retries > 0 && (jest || passed) {
                retried_tests += 1;
            }
            only_trial(
                &mut seen,
                &test,
                "the describe titles and the test title joined by ` > `",
            )?;
            trials.push(Trial {
                test,
                repeat: 1,
                attempts: retried(
                    retries,
                    passed,
                    a.duration.unwrap_or(0.0) / 1000.0,
                    &a.failure_messages
                        .last()
                        .map(|m| first_line(m))
                        .unwrap_or_else(|| "failed".into()),
                ),
            });
        }
    }
    let mut notes = Vec::new();
    if retried_tests > 0 {
        notes.push(format!(
            "{retried_tests} test(s) were retried ({}): each is graded by its failed first attempt; {}",
            if jest {
                "`invocations` > 1"
            } else {
                "a passed test with failure messages from earlier attempts"
            },
            if jest {
                "remove `jest.retryTimes` to turn retries off"
            } else {
                "turn retries off with `--retry 0` and no `retry` in vitest.config"
            }
        ));
    }
    if not_run > 0 {
        notes.push(format!(
            "{not_run} test(s) are `pending`: the run stopped before them (`--bail`) and they were left out; \
             run the suite to its end, without `--bail`"
        ));
    }
    Ok((
        Report {
            trials,
            skipped,
            skipped_tests,
            stamps: std::iter::once(&file.start_time)
                .chain(
                    file.test_results
                        .iter()
                        .flat_map(|s| [&s.start_time, &s.end_time]),
                )
                .filter_map(super::stamp)
                .collect(),
            notes,
        },
        writer,
    ))
}
