//! mocha's JSON reporter (`mocha --reporter json --reporter-option output=FILE`) → trials.
//!
//! From mocha 11's real output: `.tests[]` holds each test once, as it finally ended, with
//! `fullTitle`, `file`, `duration` (ms), `err` (`{}` when it passed) and **`currentRetry`: how
//! many retries it took** — a test that failed once and passed on `--retries 2` says
//! `currentRetry: 1` and an empty `err`, and nothing else in the file tells it from a
//! first-attempt pass. `.failures[]` also holds **failed hooks** (`"before each" hook for
//! "lookup"`), which are not tests: mocha skips the tests a failed hook guards and leaves
//! them out of the report, so such a file is refused rather than judged on the tests that
//! happened to run. `.pending[]` holds skipped tests. `fullTitle` joins the titles with
//! spaces, so two tests can share it (`it("a b")`, and `it("b")` in `describe("a")`): such a
//! report is refused, since each test runs once a run and the two would be read as repeats;
//! that holds for a skipped test too (`.tests[]` lists pending tests), so a failure is never
//! left out as the skip of another test with its title.
//!
//! **A pass is only what mocha says passed**: a test is read as a pass when it is listed in
//! `.passes[]`, not in `.failures[]`, and its `err` is `{}`. A test that threw something that
//! serialises to `{}` (`throw Object.create(Error.prototype)`) is in `.failures[]` with an
//! empty `err`; an `err` of any other shape (a string, `null`, missing) is not a pass either.

use crate::ingest::capped::{Capped, Listed, Tests};
use std::collections::HashSet;

use serde::Deserialize;

use super::{Error, Report, first_line, only_trial, parse, relative_to_common_dir, retried};
use crate::ingest::{Count, Trial};

#[derive(Deserialize)]
struct File {
    tests: Capped<Test, Tests>,
    #[serde(default)]
    pending: Capped<Test, Listed>,
    #[serde(default)]
    failures: Capped<Test, Listed>,
    #[serde(default)]
    passes: Capped<Test, Listed>,
    /// `start` and `end`: the run's identity.
    #[serde(default)]
    stats: serde_json::Value,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Test {
    full_title: String,
    #[serde(default)]
    file: Option<String>,
    #[serde(default)]
    duration: Option<f64>,
    #[serde(default)]
    current_retry: Count,
    #[serde(default)]
    err: serde_json::Value,
}

impl Test {
    /// mocha writes `err: {}` for a test that passed; anything else (an error's fields, or a
    /// shape mocha does not write) is not a pass.
    fn clean(&self) -> bool {
        self.err.as_object().is_some_and(|o| o.is_empty())
    }

    fn message(&self) -> String {
        self.err
            .get("message")
            .and_then(|m| m.as_str())
            .map(first_line)
            .unwrap_or_else(|| "failed".into())
    }

    fn key(&self) -> (&str, &str) {
        (self.file.as_deref().unwrap_or(""), self.full_title.as_str())
    }
}

/// Whether a JSON document's top-level keys are mocha's JSON reporter's.
pub fn looks_like(keys: &[String]) -> bool {
    let has = |k: &str| keys.iter().any(|x| x == k);
    has("stats") && has("tests") && has("passes") && has("failures")
}

/// Read one mocha JSON report: one run of the suite.
pub fn read(text: &str) -> Result<Report, Error> {
    let file: File = parse(text, "mocha's JSON report (`.tests[]`)")?;
    let tests: HashSet<(&str, &str)> = file.tests.iter().map(Test::key).collect();
    if let Some(hook) = file.failures.iter().find(|f| !tests.contains(&f.key())) {
        // An `after all` hook runs once its tests have ended: they are all in the report, but
        // the failure belongs to none of them, so the run is still not one to judge.
        let why = if hook.full_title.contains("\"after all\" hook") {
            "its tests ran, but the failure belongs to none of them and mocha marks the run failed"
        } else {
            "mocha skips the tests a failed hook guards and leaves them out of its report, so their \
             failures would be missed"
        };
        return Err(Error::Refused(format!(
            "`{}` failed ({}): {why}. Fix the hook, then run the suite again",
            hook.full_title,
            hook.message()
        )));
    }
    let pending: HashSet<(&str, &str)> = file.pending.iter().map(Test::key).collect();
    let failed: HashSet<(&str, &str)> = file.failures.iter().map(Test::key).collect();
    let passed: HashSet<(&str, &str)> = file.passes.iter().map(Test::key).collect();
    let files: Vec<&str> = file.tests.iter().map(|t| t.key().0).collect();
    let rel = relative_to_common_dir(&files);
    let mut seen = HashSet::new();
    let mut trials = Vec::with_capacity(file.tests.len());
    let mut skipped_tests = Vec::new();
    let mut spent = 0;
    for (t, rel) in file.tests.iter().zip(rel) {
        let test = if rel.is_empty() {
            t.full_title.clone()
        } else {
            format!("{rel}::{}", t.full_title)
        };
        // Before the pending test is left out: `.pending[]` is keyed by (file, full title)
        // too, so a failing test sharing its full title with a skipped one would be left out
        // with it (a failure read as a skip). Two records, one title: refused, as JUnit's
        // duplicate ids are.
        only_trial(
            &mut seen,
            &test,
            "mocha's full title joins the describe titles with spaces",
        )?;
        // A test in `failures[]` failed, whatever else lists it (issue 29, B9: one listed in
        // both `failures[]` and `pending[]` was read as skipped).
        if pending.contains(&t.key()) && !failed.contains(&t.key()) {
            skipped_tests.push(test);
            continue;
        }
        // Bounded over the whole file before the attempts are built.
        super::super::spend_retries(&mut spent, t.current_retry.0).map_err(Error::Refused)?;
        // mocha's own word: listed as passed, not as failed, with no error recorded.
        let pass = passed.contains(&t.key()) && !failed.contains(&t.key()) && t.clean();
        trials.push(Trial {
            test,
            repeat: 1,
            attempts: retried(
                t.current_retry.0,
                pass,
                t.duration.unwrap_or(0.0) / 1000.0,
                &t.message(),
            ),
        });
    }
    let skipped = file
        .pending
        .iter()
        .filter(|t| !failed.contains(&t.key()))
        .count() as u64;
    let retried_tests = file.tests.iter().filter(|t| t.current_retry.0 > 0).count();
    let mut notes = Vec::new();
    if retried_tests > 0 {
        notes.push(format!(
            "{retried_tests} test(s) were retried (`currentRetry` > 0): each is graded by its failed first \
             attempt; turn retries off with `--retries 0`"
        ));
    }
    Ok(Report {
        trials,
        skipped,
        skipped_tests,
        stamps: ["start", "end"]
            .iter()
            .filter_map(|k| super::stamp(&file.stats[*k]))
            .collect(),
        notes,
    })
}
