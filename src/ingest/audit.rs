//! `gate explain --junit`: what a retry setting measured on the user's own JUnit files.
//!
//! For every test: how many runs, how many passed their first attempt, how many ended green
//! (with retries), the attempts spent, and the runs that were green only through a retry;
//! for the suite: in how many runs every test passed its first attempt, against how many the
//! retries turned green; and what an eval tool's own summary (an Inspect reducer) claimed
//! for a test against its first attempts. Pure arithmetic over [`RunFile`]s; rendering is
//! the command's job.

use serde::Serialize;

use super::RunFile;
use crate::stats::estimate::pass_at_k;

/// One test across the runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TestAudit {
    /// The test's id.
    pub id: String,
    /// Runs (trials) recorded.
    pub runs: u64,
    /// Runs whose first attempt passed.
    pub first_attempt_passed: u64,
    /// Runs whose last attempt passed: what a CI with retries shows as green.
    pub final_passed: u64,
    /// Attempts spent over all runs.
    pub attempts: u64,
    /// Most attempts spent in one run.
    pub max_attempts: u64,
    /// Runs green only because a retry passed (first attempt failed, last passed).
    pub green_only_through_retries: u64,
    /// `first_attempt_passed / runs`: the per-run success rate.
    pub first_attempt_rate: f64,
    /// `final_passed / runs`: the rate the retry setting reports.
    pub final_rate: f64,
    /// Unbiased pass@k from the first attempts, with k = the observed retry setting + 1:
    /// what a rate of `first_attempt_rate` looks like behind that many attempts. `None` when
    /// k exceeds the runs.
    pub pass_at_k: Option<f64>,
}

/// The suite across the runs: each file is a run, and each repeat inside a file
/// (pytest-repeat, `--repeat-each`) is a run of its own.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SuiteAudit {
    /// Runs (files × repeats).
    pub runs: u64,
    /// Runs in which every test passed its first attempt.
    pub first_attempt_green: u64,
    /// Runs in which every test ended green: what CI showed.
    pub final_green: u64,
}

/// The whole audit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Audit {
    /// The retry setting the data shows: the most attempts any test spent in one run, minus
    /// one (a lower bound on the configured setting).
    pub retries_observed: u64,
    /// k of the pass@k the setting turns each test into: `retries_observed + 1`.
    pub k: u64,
    /// Per test, in order of first appearance.
    pub tests: Vec<TestAudit>,
    /// Result files read.
    pub files: u64,
    /// The suite.
    pub suite: SuiteAudit,
    /// What the tool's own summary reported per test (an Inspect reducer's value), set
    /// against the first attempts.
    pub claims: Vec<ClaimAudit>,
}

/// One thing a tool's summary said about a test, and what the test's first attempts show.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClaimAudit {
    /// The test's id.
    pub id: String,
    /// What the tool reported, in its words (`max says C`).
    pub says: String,
    /// Runs whose first attempt passed.
    pub first_attempt_passed: u64,
    /// Runs recorded.
    pub runs: u64,
}

/// Audit the runs, in the order given.
pub fn audit(runs: &[RunFile]) -> Audit {
    let mut tests: Vec<TestAudit> = Vec::new();
    let mut index = std::collections::HashMap::new();
    let mut suite = SuiteAudit {
        runs: 0,
        first_attempt_green: 0,
        final_green: 0,
    };
    for run in runs {
        // Per repeat index in this file: (every first attempt passed, every test ended green).
        let mut repeats: std::collections::BTreeMap<u64, (bool, bool)> = Default::default();
        for t in &run.trials {
            let i = *index.entry(t.test.clone()).or_insert_with(|| {
                tests.push(TestAudit {
                    id: t.test.clone(),
                    runs: 0,
                    first_attempt_passed: 0,
                    final_passed: 0,
                    attempts: 0,
                    max_attempts: 0,
                    green_only_through_retries: 0,
                    first_attempt_rate: 0.0,
                    final_rate: 0.0,
                    pass_at_k: None,
                });
                tests.len() - 1
            });
            let a = &mut tests[i];
            let first = t.attempts.first().is_some_and(|x| x.passed);
            let last = t.attempts.last().is_some_and(|x| x.passed);
            a.runs += 1;
            a.first_attempt_passed += u64::from(first);
            a.final_passed += u64::from(last);
            a.attempts += t.attempts.len() as u64;
            a.max_attempts = a.max_attempts.max(t.attempts.len() as u64);
            a.green_only_through_retries += u64::from(!first && last);
            let r = repeats.entry(t.repeat).or_insert((true, true));
            r.0 &= first;
            r.1 &= last;
        }
        for (all_first, all_final) in repeats.into_values() {
            suite.runs += 1;
            suite.first_attempt_green += u64::from(all_first);
            suite.final_green += u64::from(all_final);
        }
    }
    let retries_observed = tests
        .iter()
        .map(|t| t.max_attempts)
        .max()
        .unwrap_or(1)
        .saturating_sub(1);
    let k = retries_observed + 1;
    for t in &mut tests {
        t.first_attempt_rate = t.first_attempt_passed as f64 / t.runs as f64;
        t.final_rate = t.final_passed as f64 / t.runs as f64;
        t.pass_at_k = pass_at_k(t.runs, t.first_attempt_passed, k);
    }
    let claims = runs
        .iter()
        .flat_map(|r| &r.claims)
        .filter_map(|c| {
            let t = tests.iter().find(|t| t.id == c.test)?;
            Some(ClaimAudit {
                id: c.test.clone(),
                says: c.says.clone(),
                first_attempt_passed: t.first_attempt_passed,
                runs: t.runs,
            })
        })
        .collect();
    Audit {
        retries_observed,
        k,
        tests,
        files: runs.len() as u64,
        suite,
        claims,
    }
}
