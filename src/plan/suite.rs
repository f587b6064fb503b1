//! The `suite:` task kind: a whole test suite as each trial, every test case a task.
//!
//! A team with an existing suite should not have to write one task per test. A suite task
//! runs `suite.run` once per trial (retries off is the runner's business: the command says
//! so), reads the result file it wrote with the readers of `gate ingest`, and judges each
//! test case by the task's rule, as a task of its own (`ID/CASE`). This module validates the
//! entry; [`crate::runner::suite`] runs it.

use serde_saphyr::Spanned;

use super::schema::{SamplingSpec, TaskFile};
use super::{PlanError, Validator};
use crate::ingest::Format;
use crate::ledger::SuiteRecord;

/// What `results:` defaults to: the fresh path gate gives each run.
pub const GATE_JUNIT: &str = "$GATE_JUNIT";

/// The name of the JUnit test suite that holds a large suite task's passing cases (one test
/// case each, the rule stated once). No case id can take it (a case id is `SUITE/CASE`, and
/// a suite's id has no `/`), and a plan whose task id takes it for one of its suite tasks is
/// refused at load, so no report has two test suites of this name (review 6, a18).
pub fn passing_cases_suite(suite: &str) -> String {
    format!("{suite}: passing cases")
}

/// A suite task's result file and format (its command is the task's `run`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuiteTask {
    /// `None`: the run writes to `$GATE_JUNIT`; `Some(path)`: to this path, relative to the
    /// task's `cwd`.
    pub results: Option<String>,
    /// The format, or `None` to detect it from each file's content.
    pub format: Option<Format>,
    /// The task's own harness exit codes (beside `policy.harness_exit_codes`).
    pub harness_exit_codes: Vec<i32>,
    /// Every record is a first attempt (`assume_retries_off`).
    pub assume_retries_off: bool,
}

impl SuiteTask {
    /// The ledger header's record of it.
    pub fn record(&self) -> SuiteRecord {
        SuiteRecord {
            results: self
                .results
                .clone()
                .unwrap_or_else(|| GATE_JUNIT.to_string()),
            format: self.format.map(|f| f.as_str().to_string()),
        }
    }
}

impl Validator<'_> {
    /// The `suite:` of a task, validated: no `run` or `check` beside it (the suite is the
    /// run, and its result file the check); a `base:` only with a `compare:` rule (each
    /// test case is then paired head against base, `crate::runner::suite_pairs`), and no
    /// `base.check` (the result file grades each side).
    pub(super) fn suite(
        &self,
        entry: &Spanned<TaskFile>,
        id: &str,
        sampling: Option<&Spanned<SamplingSpec>>,
    ) -> Result<Option<SuiteTask>, PlanError> {
        let t = &entry.value;
        let Some(s) = &t.suite else {
            return Ok(None);
        };
        if let Some(r) = &t.run {
            return Err(self.invalid(
                &r.referenced,
                format!(
                    "task `{id}` has both `run` and `suite`: a suite task's command is `suite.run`"
                ),
            ));
        }
        if let Some(c) = &t.check {
            return Err(self.invalid(
                &c.referenced,
                format!(
                    "task `{id}`: `check` does not apply to a suite task (each test case is graded by the suite's result file)"
                ),
            ));
        }
        let compare = matches!(
            sampling.map(|s| &s.value),
            Some(SamplingSpec::Compare { .. })
        );
        if let Some(b) = &t.base {
            if !compare {
                return Err(self.invalid(
                    &b.referenced,
                    format!(
                        "task `{id}`: `base` applies to a suite task with a `compare:` rule only (it says where base runs its suite)"
                    ),
                ));
            }
            if let Some(c) = &b.value.check {
                return Err(self.invalid(
                    &c.referenced,
                    format!(
                        "task `{id}`: `base.check` does not apply to a suite task (each test case is graded by the suite's result file, on each side)"
                    ),
                ));
            }
        }
        let results = match &s.value.results {
            None => None,
            Some(r) if r.value.trim() == GATE_JUNIT || r.value.trim() == "${GATE_JUNIT}" => None,
            Some(r) if r.value.trim().is_empty() || r.value.contains('$') => {
                return Err(self.invalid(
                    &r.referenced,
                    format!(
                        "task `{id}`: `suite.results` `{}` must be `$GATE_JUNIT` or a path relative to the task's `cwd` (no other variables)",
                        r.value
                    ),
                ));
            }
            Some(r) => Some(r.value.trim().to_string()),
        };
        if s.value.harness_exit_codes.contains(&0) {
            return Err(self.invalid(
                &s.referenced,
                format!(
                    "task `{id}`: `suite.harness_exit_codes` cannot contain 0: exit 0 is a suite that ran"
                ),
            ));
        }
        let format = s.value.format;
        Ok(Some(SuiteTask {
            results,
            format,
            harness_exit_codes: s.value.harness_exit_codes.clone(),
            assume_retries_off: s.value.assume_retries_off,
        }))
    }
}
