//! Playwright Test's JSON reporter (`playwright test --reporter=json`, the file named by
//! `PLAYWRIGHT_JSON_OUTPUT_NAME`) → trials.
//!
//! From @playwright/test 1.65's real output: `.suites[]` are the test files (nested
//! `.suites[]` the `describe` blocks), each `.specs[]` a test, and **each spec's `.tests[]`
//! one entry per project and per `--repeat-each` repeat, in repeat order**. Each entry's
//! `.results[]` holds every attempt with its `retry` index (0 is the first) and `status`
//! (`passed`, `failed`, `timedOut`, `skipped`, `interrupted`), against the entry's
//! `expectedStatus` (`failed` for a `test.fail()`): so retries are all there, where
//! Playwright's JUnit shows only the last. The entry's own `status` (`flaky`, `expected`)
//! judges the last attempt and is ignored. Top-level `.errors[]` (a failed global setup, a
//! worker crash, "no tests found") mean tests did not run: such a report is refused, as is
//! one with an interrupted attempt.

use crate::ingest::capped::{Capped, Groups, Results, Tests};
use std::collections::HashMap;

use serde::Deserialize;

use super::{Error, Report, first_line, parse};
use crate::ingest::{Attempt, Trial, cut_text};

#[derive(Deserialize)]
struct File {
    suites: Capped<Suite, Groups>,
    #[serde(default)]
    errors: Vec<Message>,
    /// `startTime`: the run's identity.
    #[serde(default)]
    stats: serde_json::Value,
}

#[derive(Deserialize)]
struct Suite {
    title: String,
    #[serde(default)]
    specs: Capped<Spec, Groups>,
    #[serde(default)]
    suites: Capped<Suite, Groups>,
}

#[derive(Deserialize)]
struct Spec {
    title: String,
    #[serde(default)]
    tests: Capped<Test, Tests>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    expected_status: String,
    #[serde(default)]
    project_name: String,
    #[serde(default)]
    results: Capped<Attempted, Results>,
}

#[derive(Deserialize)]
struct Attempted {
    status: String,
    #[serde(default)]
    retry: u32,
    #[serde(default)]
    duration: f64,
    #[serde(default)]
    error: Option<Message>,
}

#[derive(Deserialize)]
struct Message {
    #[serde(default)]
    message: Option<String>,
}

/// Whether a JSON document's top-level keys are Playwright's JSON reporter's.
pub fn looks_like(keys: &[String]) -> bool {
    let has = |k: &str| keys.iter().any(|x| x == k);
    has("config") && has("suites") && has("stats") && !has("results")
}

/// Read one Playwright JSON report: one run of the suite, with its `--repeat-each` repeats.
pub fn read(text: &str) -> Result<Report, Error> {
    let file: File = parse(text, "Playwright's JSON report (`.suites[]`)")?;
    if let Some(e) = file.errors.first() {
        return Err(Error::Refused(format!(
            "the run reports an error outside any test ({}): tests it stopped did not run and are not in the \
             report, so their failures would be missed. Fix it, then run the suite again",
            first_line(e.message.as_deref().unwrap_or("no message"))
        )));
    }
    let mut specs = Vec::new();
    for s in &file.suites {
        // A top-level suite is a file, named by its path under `testDir`.
        collect(s, &s.title, &mut Vec::new(), &mut specs);
    }
    let mut seen: HashMap<String, u64> = HashMap::new();
    let mut trials = Vec::new();
    let mut skipped = 0;
    let mut skipped_tests = Vec::new();
    let mut not_run = 0;
    let mut retried_tests = 0;
    let mut spent = 0;
    for (id, spec) in &specs {
        for t in &spec.tests {
            let mut results: Vec<&Attempted> = t.results.iter().collect();
            results.sort_by_key(|r| r.retry);
            if let Some(r) = results.iter().find(|r| r.status == "interrupted") {
                return Err(Error::Refused(format!(
                    "`{id}` was interrupted (attempt {}): the run was stopped before its tests ended. Run the \
                     suite to its end",
                    r.retry + 1
                )));
            }
            // Named by its project whenever the config names one, not only when the run
            // holds several: `--project chromium` runs the same tests under the same ids.
            let test = if t.project_name.is_empty() {
                id.clone()
            } else {
                format!("{id} [{}]", t.project_name)
            };
            // Playwright's own rule (`TestCase.outcome()`): a result whose `status` is
            // `skipped` did not run; any other result is judged against `expectedStatus`, and
            // one that differs is unexpected, a failure. So a test that failed and then reached
            // `test.skip()` (`status: "failed"`, `expectedStatus: "skipped"`) failed; reading
            // the expected status first left it out as a skip (review 47, c08).
            let first_skipped = results.first().is_none_or(|r| r.status == "skipped");
            if first_skipped {
                if t.expected_status == "skipped" {
                    skipped += 1;
                    skipped_tests.push(test.clone());
                } else {
                    // Skipped by Playwright, not by the test (whose `test.skip()` expects
                    // `skipped`): a failed `beforeAll`, or an earlier test of a serial group
                    // that failed, stopped it. Its first attempt did not run; a later one's
                    // pass would not be its grade.
                    not_run += 1;
                }
                // Kept in its place (a `--repeat-each` repeat), no attempts: a skip, or a
                // failed repeat when other repeats of the test ran in this file
                // (crate::ingest::settle_skipped_repeats; review 47, c21).
                let n = seen.entry(test.clone()).or_default();
                *n += 1;
                trials.push(Trial {
                    test,
                    repeat: *n,
                    attempts: Vec::new(),
                });
                continue;
            }
            if results.len() > 1 {
                retried_tests += 1;
            }
            // Every attempt after the first is a ledger row: bounded over the whole file, as
            // every reader's retries are (review 47, c20: 200 tests × 10,000 results wrote
            // 2,000,000 rows).
            crate::ingest::spend_retries(&mut spent, results.len() as u64 - 1)
                .map_err(Error::Refused)?;
            let attempts = results
                .iter()
                .map(|r| {
                    let passed = r.status == t.expected_status;
                    Attempt {
                        passed,
                        unavailable: false,
                        duration_s: r.duration / 1000.0,
                        message: if passed {
                            String::new()
                        } else {
                            let why = r
                                .error
                                .as_ref()
                                .and_then(|e| e.message.as_deref())
                                .map(first_line)
                                .unwrap_or_default();
                            cut_text(&format!(
                                "{} (expected {}) {why}",
                                r.status, t.expected_status
                            ))
                        },
                        detail: String::new(),
                    }
                })
                .collect();
            let n = seen.entry(test.clone()).or_default();
            *n += 1;
            trials.push(Trial {
                test,
                repeat: *n,
                attempts,
            });
        }
    }
    let mut notes = Vec::new();
    if retried_tests > 0 {
        notes.push(format!(
            "{retried_tests} test run(s) were retried (`results[]` past `retry: 0`): each is graded by its \
             first attempt; set `retries: 0` in playwright.config"
        ));
    }
    if not_run > 0 {
        notes.push(format!(
            "{not_run} test run(s) did not run their first attempt (a failed `beforeAll` or an earlier failure \
             in a serial group skipped them, or the run stopped early) and were left out: fix what stopped \
             them, or they are never graded"
        ));
    }
    Ok(Report {
        trials,
        skipped: skipped + not_run,
        skipped_tests,
        stamps: super::stamp(&file.stats["startTime"]).into_iter().collect(),
        notes,
    })
}

/// Every spec under a suite, with its test id `{file}::{describe › … › title}`, as
/// Playwright's JUnit names it (classname the file, name the titles joined by ` › `).
fn collect<'a>(
    suite: &'a Suite,
    file: &str,
    titles: &mut Vec<&'a str>,
    out: &mut Vec<(String, &'a Spec)>,
) {
    for spec in &suite.specs {
        let mut path: Vec<&str> = titles.clone();
        path.push(&spec.title);
        out.push((format!("{file}::{}", path.join(" › ")), spec));
    }
    for inner in &suite.suites {
        titles.push(&inner.title);
        collect(inner, file, titles, out);
        titles.pop();
    }
}
