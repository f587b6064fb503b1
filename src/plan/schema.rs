//! The plan file as written (serde types), before validation.
//!
//! Unknown fields are denied everywhere, so a typo such as `retires:` is an error that names
//! file:line:col and the allowed keys (serde-saphyr renders the snippet). Values that need a
//! location for a later semantic error are wrapped in [`Spanned`].

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::ledger::{OnInconclusive, TimeoutPolicy};

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanFile {
    /// Schema version; only `1` exists.
    pub version: Spanned<u32>,
    /// Default sampling rule for every task.
    #[serde(default)]
    pub sampling: Option<Spanned<SamplingSpec>>,
    /// The critical tasks.
    pub tasks: Spanned<Vec<Spanned<TaskFile>>>,
    /// Run policy.
    #[serde(default)]
    pub policy: Option<Spanned<PolicyFile>>,
}

/// A sampling rule as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum SamplingSpec {
    /// `single: {n, c}`.
    Single {
        /// Trials.
        n: u64,
        /// Acceptance number.
        c: u64,
    },
    /// `sequential: {healthy, regressed, alpha, beta, max_trials?}`.
    Sequential {
        /// p0.
        healthy: f64,
        /// p1.
        regressed: f64,
        /// Producer's risk.
        alpha: f64,
        /// Consumer's risk.
        beta: f64,
        /// Truncation (default: twice the equal-risk single plan's n).
        #[serde(default)]
        max_trials: Option<u64>,
    },
    /// `design: {healthy, regressed, alpha?, beta?, rule}`: designed at load time.
    Design {
        /// p0.
        healthy: f64,
        /// p1.
        regressed: f64,
        /// Producer's risk (default 0.05).
        #[serde(default)]
        alpha: Option<f64>,
        /// Consumer's risk (default 0.10).
        #[serde(default)]
        beta: Option<f64>,
        /// Which rule to design.
        rule: Rule,
        /// Truncation of a designed sequential rule.
        #[serde(default)]
        max_trials: Option<u64>,
    },
}

/// Which rule `design:` produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A single (n, c) plan.
    Single,
    /// An SPRT.
    Sequential,
}

/// One task as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TaskFile {
    /// Unique id.
    pub id: Spanned<String>,
    /// The agent run.
    pub run: Spanned<CommandSpec>,
    /// Reads the resulting state back; must exit 0 for a pass.
    #[serde(default)]
    pub check: Option<Spanned<CommandSpec>>,
    /// Per-attempt timeout.
    #[serde(default)]
    pub timeout: Option<Spanned<DurationSpec>>,
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory, relative to the plan file's directory.
    #[serde(default)]
    pub cwd: Option<Spanned<String>>,
    /// Files whose contents the verdict depends on (globs relative to the plan file).
    #[serde(default)]
    pub fixtures: Vec<Spanned<String>>,
    /// Overrides the file's sampling rule.
    #[serde(default)]
    pub sampling: Option<Spanned<SamplingSpec>>,
}

/// A command: a shell command line (`sh -c`) or an argv list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandSpec {
    /// Run with `sh -c`.
    Shell(String),
    /// Run directly.
    Argv(Vec<String>),
}

impl<'de> Deserialize<'de> for CommandSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = CommandSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a shell command line (string) or an argv list of strings")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<CommandSpec, E> {
                Ok(CommandSpec::Shell(v.to_string()))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CommandSpec, A::Error> {
                let mut argv = Vec::new();
                while let Some(s) = seq.next_element::<String>()? {
                    argv.push(s);
                }
                Ok(CommandSpec::Argv(argv))
            }
        }
        d.deserialize_any(V)
    }
}

/// A duration: `500ms`, `30s`, `2m`, `1h`, or a number of seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DurationSpec(pub Duration);

impl<'de> Deserialize<'de> for DurationSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        const EXPECTED: &str =
            "a duration such as `500ms`, `30s`, `2m`, `1h` or a number of seconds, at most 168h";
        impl Visitor<'_> for V {
            type Value = DurationSpec;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<DurationSpec, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<DurationSpec, E> {
                u64::try_from(v)
                    .map(|v| DurationSpec(Duration::from_secs(v)))
                    .map_err(|_| E::custom(format!("negative duration `{v}`: expected {EXPECTED}")))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<DurationSpec, E> {
                Duration::try_from_secs_f64(v)
                    .ok()
                    .filter(|d| *d <= MAX_DURATION)
                    .map(DurationSpec)
                    .ok_or_else(|| {
                        E::custom(format!("invalid duration `{v}`: expected {EXPECTED}"))
                    })
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<DurationSpec, E> {
                parse_duration(v).map(DurationSpec).ok_or_else(|| {
                    E::custom(format!("invalid duration `{v}`: expected {EXPECTED}"))
                })
            }
        }
        d.deserialize_any(V)
    }
}

/// The longest duration a plan may give (7 days): longer is a typo, and would overflow
/// deadline arithmetic long before it meant anything in CI.
pub const MAX_DURATION: Duration = Duration::from_secs(7 * 24 * 3600);

/// Parse `500ms`, `30s`, `2m`, `1h`, `1.5s` or a bare number of seconds, up to
/// [`MAX_DURATION`].
pub fn parse_duration(s: &str) -> Option<Duration> {
    let s = s.trim();
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(s.len());
    let (num, unit) = s.split_at(split);
    let value: f64 = num.parse().ok()?;
    let scale = match unit.trim() {
        "ms" => 1e-3,
        "" | "s" => 1.0,
        "m" => 60.0,
        "h" => 3600.0,
        _ => return None,
    };
    Duration::try_from_secs_f64(value * scale)
        .ok()
        .filter(|d| *d <= MAX_DURATION)
}

/// `policy:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PolicyFile {
    /// What a timeout counts as (default `fail`).
    #[serde(default)]
    pub timeout: TimeoutPolicy,
    /// Transport faults.
    #[serde(default)]
    pub transport: TransportFile,
    /// Unavailable trials tolerated per task (default: 10% of n or max_trials, rounded up).
    #[serde(default)]
    pub max_unavailable: Option<u64>,
    /// What an INCONCLUSIVE gate exits with (default `fail`).
    #[serde(default)]
    pub on_inconclusive: OnInconclusive,
    /// Trials in parallel (default 1).
    #[serde(default)]
    pub jobs: Option<Spanned<usize>>,
    /// Regular expressions whose matches are replaced by `***` in everything stored.
    #[serde(default)]
    pub redact: Vec<Spanned<String>>,
    /// Timeout for tasks that set none (default 10m).
    #[serde(default)]
    pub default_timeout: Option<Spanned<DurationSpec>>,
    /// Time between SIGTERM and SIGKILL when a process group is stopped (default 5s).
    #[serde(default)]
    pub kill_grace: Option<DurationSpec>,
}

/// `policy.transport:` as written.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransportFile {
    /// Exit codes of `run` that mean a transport fault (e.g. 75, EX_TEMPFAIL).
    #[serde(default)]
    pub exit_codes: Vec<i32>,
    /// Extra attempts after a transport fault; recorded, never promoted to the grade.
    #[serde(default)]
    pub max_retries: Option<Spanned<u32>>,
    /// Exponential backoff between those attempts.
    #[serde(default)]
    pub backoff: Option<Spanned<BackoffFile>>,
}

/// `policy.transport.backoff:` as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackoffFile {
    /// First delay (default 1s).
    pub min: DurationSpec,
    /// Largest delay (default 30s).
    pub max: DurationSpec,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_every_spelling() {
        assert_eq!(parse_duration("500ms"), Some(Duration::from_millis(500)));
        assert_eq!(parse_duration("30s"), Some(Duration::from_secs(30)));
        assert_eq!(parse_duration("2m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("1h"), Some(Duration::from_secs(3600)));
        assert_eq!(parse_duration("1.5s"), Some(Duration::from_millis(1500)));
        assert_eq!(parse_duration("7"), Some(Duration::from_secs(7)));
        assert_eq!(parse_duration("2 m"), Some(Duration::from_secs(120)));
        assert_eq!(parse_duration("fast"), None);
        assert_eq!(parse_duration("3d"), None);
        assert_eq!(parse_duration("168h"), Some(MAX_DURATION));
        assert_eq!(parse_duration("169h"), None);
        assert_eq!(parse_duration("18000000000000000000"), None);
        assert_eq!(parse_duration(""), None);
    }
}
