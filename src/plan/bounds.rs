//! Bounds on plan values that could make a run endless, huge, or fail late.
//!
//! Every limit here is checked at load time, so a plan that cannot run sensibly is refused
//! with `file:line:col` and exit 2 before the first trial, instead of hanging (a kill grace
//! of a year), exhausting the machine (a million parallel jobs), or failing at run time
//! (exit 4) on something the plan file already said (a NUL byte in an argument). The
//! numbers are documented in docs/trust.md.

use serde_saphyr::{Location, Spanned};

use super::schema::{CommandSpec, TaskFile};
use super::{PlanError, Policy, Task, Validator};

/// Longest SIGTERM → SIGKILL grace: past this, a stuck task holds a CI job for too long.
pub const MAX_KILL_GRACE: std::time::Duration = std::time::Duration::from_secs(600);
/// Most parallel trials.
pub const MAX_JOBS: usize = 1024;
/// File descriptors one running trial may hold in gate (two capture pipes, a pidfd, the
/// result file, with slack); `jobs` times this must fit under the open-file limit.
pub const FDS_PER_JOB: u64 = 8;
/// Descriptors kept for gate itself (ledger, lock, reports, std streams).
pub const FDS_RESERVED: u64 = 64;
/// Longest task id, in bytes (ids name folders and appear in every report).
pub const MAX_ID_BYTES: usize = 128;
/// Longest single argument or shell command line, in bytes: Linux refuses longer ones at
/// `exec` (MAX_ARG_STRLEN), which would otherwise surface as a harness error mid-run.
pub const MAX_ARG_BYTES: usize = 128 * 1024;
/// Largest plan file read, in bytes.
pub const MAX_PLAN_BYTES: u64 = 4 * 1024 * 1024;

/// `version:` must be written as the integer `1`: not `"1"`, `+1` or `0x1`, which the YAML
/// reader would otherwise coerce.
pub(super) fn version_literal(
    path: &str,
    text: &str,
    version: &Spanned<u32>,
) -> Result<(), PlanError> {
    let at = version.referenced;
    let written = text
        .lines()
        .nth(at.line().saturating_sub(1) as usize)
        .and_then(|l| l.get(at.column().saturating_sub(1) as usize..))
        .map(|rest| {
            rest.split(|c: char| c.is_whitespace() || c == '#' || c == ',' || c == '}')
                .next()
                .unwrap_or_default()
        })
        .unwrap_or_default();
    // A plain integer is fine here; whether it is a version this gate reads is checked
    // with the rest of the plan.
    if written == version.value.to_string() {
        return Ok(());
    }
    Err(PlanError::Invalid {
        path: path.to_string(),
        line: at.line().max(1),
        column: at.column().max(1),
        message: format!(
            "`version` must be the integer `1`, got `{}`",
            crate::untrusted::one_line(&crate::untrusted::clip(written, 40))
        ),
    })
}

/// The soft limit on open files, if it can be read.
fn open_file_limit() -> Option<u64> {
    // `None` when unlimited (RLIM_INFINITY).
    rustix::process::getrlimit(rustix::process::Resource::Nofile).current
}

/// Check `jobs` (from the plan or `--jobs`) against [`MAX_JOBS`] and the open-file limit;
/// the error says which bound and how to lift it.
pub fn check_jobs(jobs: usize) -> Result<(), String> {
    if jobs == 0 {
        return Err("`jobs` must be at least 1".into());
    }
    if jobs > MAX_JOBS {
        return Err(format!("`jobs` must be at most {MAX_JOBS}, got {jobs}"));
    }
    if let Some(limit) = open_file_limit() {
        let need = jobs as u64 * FDS_PER_JOB + FDS_RESERVED;
        if need > limit {
            let fit = limit.saturating_sub(FDS_RESERVED) / FDS_PER_JOB;
            return Err(format!(
                "`jobs: {jobs}` needs about {need} open files but the limit is {limit} \
                 (`ulimit -n`); use at most {fit} jobs or raise the limit"
            ));
        }
    }
    Ok(())
}

impl Validator<'_> {
    /// Bounds on the policy and on each task, checked once everything is resolved.
    pub(super) fn bounds(
        &self,
        policy_at: &Location,
        policy: &Policy,
        entries: &[Spanned<TaskFile>],
        tasks: &[Task],
    ) -> Result<(), PlanError> {
        if policy.kill_grace > MAX_KILL_GRACE {
            return Err(self.invalid(
                policy_at,
                format!(
                    "`policy.kill_grace` must be at most {}s, got {}s",
                    MAX_KILL_GRACE.as_secs(),
                    policy.kill_grace.as_secs()
                ),
            ));
        }
        check_jobs(policy.jobs)
            .map_err(|m| self.invalid(policy_at, format!("`policy.{}", &m[1..])))?;
        if let Some(&bad) = policy
            .transport_exit_codes
            .iter()
            .find(|c| !(1..=255).contains(*c))
        {
            return Err(self.invalid(
                policy_at,
                format!(
                    "`policy.transport.exit_codes`: `{bad}` is not an exit code a process can \
                     report as a fault (allowed: 1 to 255; 0 is success)"
                ),
            ));
        }
        for entry in entries {
            let id = entry.value.id.value.trim();
            if id.len() > MAX_ID_BYTES {
                return Err(self.invalid(
                    &entry.value.id.referenced,
                    format!(
                        "task id is {} bytes long; ids are at most {MAX_ID_BYTES} bytes",
                        id.len()
                    ),
                ));
            }
        }
        // Tasks are resolved in file order from the entries that run a command (the others
        // ingest JUnit files).
        let run_entries = entries.iter().filter(|e| e.value.junit.is_none());
        for (entry, task) in run_entries.zip(tasks) {
            self.task_bounds(entry, task, policy_at)?;
        }
        Ok(())
    }

    fn task_bounds(
        &self,
        entry: &Spanned<TaskFile>,
        task: &Task,
        policy_at: &Location,
    ) -> Result<(), PlanError> {
        let id = &task.id;
        // A compare task's unavailable budget counts void pairs, so its bound is the pairs,
        // not the discordant pairs of the rule's lattice.
        let budget = task
            .compare()
            .map_or_else(|| task.sampling.max_graded(), |c| c.rule.max_pairs);
        if task.max_unavailable > budget {
            return Err(self.invalid(
                policy_at,
                format!(
                    "task `{id}`: `policy.max_unavailable` ({}) is more than the task's trial \
                     budget ({budget}); at most {budget}",
                    task.max_unavailable
                ),
            ));
        }
        let commands = [
            ("run", entry.value.run.as_ref()),
            ("check", entry.value.check.as_ref()),
        ];
        for (key, spec) in commands {
            let Some(spec) = spec else { continue };
            let args: Vec<&str> = match &spec.value {
                CommandSpec::Shell(s) => vec![s.as_str()],
                CommandSpec::Argv(v) => v.iter().map(String::as_str).collect(),
            };
            for a in args {
                if a.contains('\0') {
                    return Err(self.invalid(
                        &spec.referenced,
                        format!("task `{id}`: `{key}` contains a NUL byte, which no command line can carry"),
                    ));
                }
                if a.len() > MAX_ARG_BYTES {
                    return Err(self.invalid(
                        &spec.referenced,
                        format!(
                            "task `{id}`: `{key}` has an argument of {} bytes; at most {MAX_ARG_BYTES} (Linux refuses longer ones)",
                            a.len()
                        ),
                    ));
                }
            }
        }
        for (k, v) in &task.env {
            let valid = k
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
            if !valid {
                return Err(self.invalid(
                    &entry.referenced,
                    format!(
                        "task `{id}`: `env` key `{}` is not a valid variable name (letters, digits and `_`, not starting with a digit)",
                        crate::untrusted::one_line(&crate::untrusted::clip(k, 64))
                    ),
                ));
            }
            if v.contains('\0') || v.len() > MAX_ARG_BYTES {
                return Err(self.invalid(
                    &entry.referenced,
                    format!(
                        "task `{id}`: `env` value of `{k}` contains a NUL byte or is longer than {MAX_ARG_BYTES} bytes"
                    ),
                ));
            }
        }
        Ok(())
    }
}
