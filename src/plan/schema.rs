//! The plan file as written (serde types), before validation.
//!
//! Unknown fields are denied everywhere, so a typo such as `retires:` is an error that names
//! file:line:col and the allowed keys (serde-saphyr renders the snippet). Values that need a
//! location for a later semantic error are wrapped in [`Spanned`].
//!
//! The same types derive the JSON Schema (`gate schema plan`, `schemas/plan.schema.json`) with
//! schemars, so the schema cannot drift from what the loader reads. A `Spanned<T>` field says
//! `#[schemars(with = "T")]`: the location is the loader's business, not the file's shape.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fmt;
use std::marker::PhantomData;
use std::time::Duration;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::Deserialize;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde_saphyr::Spanned;

use crate::model::{OnInconclusive, TimeoutPolicy};
use crate::stats::SequentialKind;
use crate::units::{DURATION_FORMS, MAX_DURATION, RATE_FORMS, parse_duration, parse_rate};

/// A gate plan file: tasks, the sampling rule that judges them, and the run policy.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "gate plan file")]
pub struct PlanFile {
    /// The JSON Schema of this file, for editors (yaml-language-server); ignored by gate.
    #[serde(default, rename = "$schema")]
    pub schema: Option<String>,
    /// Schema version; only `1` exists.
    #[schemars(with = "u32", range(min = 1, max = 1))]
    pub version: Spanned<u32>,
    /// Default sampling rule for every task (a task may override it).
    #[serde(default)]
    #[schemars(with = "Option<SamplingSpec>")]
    pub sampling: Option<Spanned<SamplingSpec>>,
    /// Where the base side of `compare:` tasks runs: `cwd` (a checkout of the base revision,
    /// relative to the plan file) and/or `env`; a task's own `base:` overrides it.
    #[serde(default)]
    #[schemars(with = "Option<BaseFile>")]
    pub base: Option<Spanned<BaseFile>>,
    /// The critical tasks (at least one).
    #[schemars(with = "Vec<TaskFile>", length(min = 1))]
    pub tasks: Spanned<Vec<Spanned<TaskFile>>>,
    /// Run policy (every key optional).
    #[serde(default)]
    #[schemars(with = "Option<PolicyFile>")]
    pub policy: Option<Spanned<PolicyFile>>,
}

/// A sampling rule as written: exactly one of `single`, `sequential`, `design`, `compare`.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "snake_case")]
pub enum SamplingSpec {
    /// `single: {n, c}`.
    Single {
        /// Trials, 1 to 1,000,000 (`MAX_TRIALS_LIMIT`).
        #[schemars(range(min = 1, max = 1_000_000))]
        n: u64,
        /// Acceptance number: failures tolerated, below `n`.
        c: u64,
    },
    /// `sequential: {healthy, regressed, alpha?, beta?, max_trials?}`: an SPRT.
    Sequential {
        /// Healthy per-trial success rate p0.
        healthy: Rate,
        /// Regressed per-trial success rate p1 (below `healthy`).
        regressed: Rate,
        /// Producer's risk (default 0.05).
        #[serde(default)]
        alpha: Option<Rate>,
        /// Consumer's risk (default 0.10).
        #[serde(default)]
        beta: Option<Rate>,
        /// Truncation (default: twice the equal-risk single plan's n).
        #[serde(default)]
        max_trials: Option<u64>,
        /// `calibrated` (default) or `wald`.
        #[serde(default)]
        rule: Option<SequentialKind>,
        /// Trials per stage: the rule decides only after every `stage` trials (a staged,
        /// group-sequential rule whose stages run as parallel shards). 1 to 10,000.
        #[serde(default)]
        #[schemars(range(min = 1, max = 10_000))]
        stage: Option<u64>,
        /// Stages at most (with `stage`): truncates at `max_stages × stage` trials.
        #[serde(default)]
        #[schemars(range(min = 1))]
        max_stages: Option<u64>,
    },
    /// `compare: {odds_ratio | base + regressed, drop?, alpha?, beta?, max_pairs?, rule?}`: is head
    /// worse than base? Each pair runs the task on head and on base; a sequential rule on the
    /// discordant pairs decides. Needs a `base:` (top level or in the task). On a `suite:`
    /// task, every test case is paired head against base, run by run, and judged by it.
    Compare {
        /// R > 1: head loses R discordant pairs for each one it wins (give this, or `base`
        /// and `regressed`).
        #[serde(default)]
        odds_ratio: Option<f64>,
        /// Base's pass rate (with `regressed`; translated to R under independent pairs).
        #[serde(default)]
        base: Option<Rate>,
        /// The head pass rate to detect, below `base`.
        #[serde(default)]
        regressed: Option<Rate>,
        /// Producer's risk (default 0.05).
        #[serde(default)]
        alpha: Option<Rate>,
        /// Consumer's risk (default 0.10).
        #[serde(default)]
        beta: Option<Rate>,
        /// Pairs after which the task stops INCONCLUSIVE (default: the fewest that keep
        /// alpha at one discordant pair in ten).
        #[serde(default)]
        max_pairs: Option<u64>,
        /// `calibrated` (default) or `wald`.
        #[serde(default)]
        rule: Option<SequentialKind>,
        /// The size of a regression in points of pass rate (default `base - regressed`, or
        /// 0.10 with `odds_ratio`): the rule also PASSes once head's losses are too rare
        /// for a fall this large.
        #[serde(default)]
        drop: Option<Rate>,
    },
    /// `design: {healthy, regressed, alpha?, beta?, rule?}`: designed at load time.
    Design {
        /// Healthy per-trial success rate p0.
        healthy: Rate,
        /// Regressed per-trial success rate p1 (below `healthy`).
        regressed: Rate,
        /// Producer's risk (default 0.05).
        #[serde(default)]
        alpha: Option<Rate>,
        /// Consumer's risk (default 0.10).
        #[serde(default)]
        beta: Option<Rate>,
        /// Which rule to design (default `single`).
        #[serde(default)]
        rule: Rule,
        /// Truncation of a designed sequential rule.
        #[serde(default)]
        max_trials: Option<u64>,
    },
}

/// Which rule `design:` produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Rule {
    /// A single (n, c) plan: a fixed budget, and shardable (the default).
    #[default]
    Single,
    /// The calibrated sequential rule (the default sequential rule).
    Sequential,
    /// The calibrated sequential rule, by its own name.
    Calibrated,
    /// Wald's textbook SPRT.
    Wald,
}

/// One task as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
// Exactly one of `run` (gate run), `suite` (gate run, a whole test suite) and `junit`
// (gate ingest).
#[schemars(extend("oneOf" = [{"required": ["run"]}, {"required": ["suite"]}, {"required": ["junit"]}]))]
pub struct TaskFile {
    /// Unique id (no `/`, `\\`, `.` or `..`).
    #[schemars(with = "String")]
    pub id: Spanned<String>,
    /// The agent run (`gate run`): a shell command line (`sh -c`) or an argv list. A task
    /// has `run` or `junit`, not both.
    #[serde(default)]
    #[schemars(with = "Option<CommandSpec>")]
    pub run: Option<Spanned<CommandSpec>>,
    /// For `gate ingest`: a glob over JUnit test-case ids (`classname::name`) whose records
    /// this task's sampling rule judges.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub junit: Option<Spanned<String>>,
    /// Reads the resulting state back; must exit 0 for a pass.
    #[serde(default)]
    #[schemars(with = "Option<CommandSpec>")]
    pub check: Option<Spanned<CommandSpec>>,
    /// Per-attempt timeout, for run and check each (default: `policy.default_timeout`).
    #[serde(default)]
    #[schemars(with = "Option<DurationSpec>")]
    pub timeout: Option<Spanned<DurationSpec>>,
    /// Extra environment.
    #[serde(default)]
    pub env: BTreeMap<String, String>,
    /// Working directory, relative to the plan file's directory.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub cwd: Option<Spanned<String>>,
    /// Files whose contents the verdict depends on (globs relative to the plan file).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub fixtures: Vec<Spanned<String>>,
    /// The folders beneath the task's `cwd` (and base's, for a compare task) its trials
    /// write; the rest of the task's folder is read-only to them, so a trial cannot rewrite a
    /// test, a configuration or a package there. Absent: the whole `cwd`.
    #[serde(default)]
    #[schemars(with = "Option<Vec<String>>")]
    pub writes: Option<Vec<Spanned<Option<String>>>>,
    /// Overrides the file's sampling rule.
    #[serde(default)]
    #[schemars(with = "Option<SamplingSpec>")]
    pub sampling: Option<Spanned<SamplingSpec>>,
    /// A `compare:` task's base side: `run`, `check`, `cwd`, `env` override the plan's
    /// top-level `base:` and, failing that, the task's own (a suite task takes no `check`).
    #[serde(default)]
    #[schemars(with = "Option<BaseFile>")]
    pub base: Option<Spanned<BaseFile>>,
    /// A whole test suite as each trial (`gate run`): every test case in the result file
    /// each run writes is judged as a task of its own, by this task's rule (with a
    /// `compare:` rule, the suite runs on head and on base and each case is a pair stream).
    #[serde(default)]
    #[schemars(with = "Option<SuiteFile>")]
    pub suite: Option<Spanned<SuiteFile>>,
}

/// A suite task's command and result file.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SuiteFile {
    /// The suite, run once per trial with the runner's retries off; it must write its
    /// results to `results` (gate sets `GATE_JUNIT` to a fresh path for each run).
    #[schemars(with = "CommandSpec")]
    pub run: Spanned<CommandSpec>,
    /// Where a run writes its results: `$GATE_JUNIT` (the default), or a path relative to
    /// the task's `cwd` that gate reads after each run.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub results: Option<Spanned<String>>,
    /// The results' format; detected from the content when absent, as `gate ingest` does.
    #[serde(default)]
    pub format: Option<crate::ingest::Format>,
    /// Exit codes of the suite's runner that mean it could not run the suite (pytest: 2
    /// interrupted or collection error, 3 internal error, 4 usage error, 5 no test
    /// collected); added to `policy.harness_exit_codes` for this task.
    #[serde(default)]
    pub harness_exit_codes: Vec<i32>,
    /// The command turns the runner's retries off, and its JUnit writer is one whose
    /// retries gate cannot see (mocha, vitest, Playwright, gotestsum): every record is a
    /// first attempt. Not needed for pytest, nextest or jest-junit.
    #[serde(default)]
    pub assume_retries_off: bool,
}

/// Where and how the base side of a `compare:` task runs. At the top level only `cwd` and
/// `env` apply; a task's `base:` may also give `run` and `check`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BaseFile {
    /// The base side's `run` (default: the task's).
    #[serde(default)]
    #[schemars(with = "Option<CommandSpec>")]
    pub run: Option<Spanned<CommandSpec>>,
    /// The base side's `check` (default: the task's).
    #[serde(default)]
    #[schemars(with = "Option<CommandSpec>")]
    pub check: Option<Spanned<CommandSpec>>,
    /// Working directory of the base side (a checkout of the base revision), relative to
    /// the plan file's directory.
    #[serde(default)]
    #[schemars(with = "Option<String>")]
    pub cwd: Option<Spanned<String>>,
    /// Environment of the base side, added to the task's (literal values that select base).
    #[serde(default)]
    pub env: BTreeMap<String, String>,
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

impl JsonSchema for CommandSpec {
    fn schema_name() -> Cow<'static, str> {
        "Command".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "a shell command line (run with `sh -c`) or an argv list (no shell)",
            "anyOf": [
                {"type": "string", "minLength": 1},
                {"type": "array", "items": {"type": "string"}, "minItems": 1}
            ]
        })
    }
}

/// A duration: a humantime expression (`500ms`, `1m30s`, `2h`) or a number of seconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DurationSpec(pub Duration);

impl NumberOrString for DurationSpec {
    const FORMS: &'static str = DURATION_FORMS;
    fn from_u64(v: u64) -> Result<Self, String> {
        Self::from_text(&v.to_string())
    }
    fn from_i64(v: i64) -> Result<Self, String> {
        let v = u64::try_from(v)
            .map_err(|_| format!("negative duration `{v}`: expected {DURATION_FORMS}"))?;
        Self::from_u64(v)
    }
    fn from_f64(v: f64) -> Result<Self, String> {
        Duration::try_from_secs_f64(v)
            .ok()
            .filter(|d| *d <= MAX_DURATION)
            .map(DurationSpec)
            .ok_or_else(|| format!("invalid duration `{v}`: expected {DURATION_FORMS}"))
    }
    fn from_text(v: &str) -> Result<Self, String> {
        parse_duration(v).map(DurationSpec)
    }
}

impl<'de> Deserialize<'de> for DurationSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumberOrStringVisitor(PhantomData))
    }
}

impl JsonSchema for DurationSpec {
    fn schema_name() -> Cow<'static, str> {
        "Duration".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": DURATION_FORMS,
            "anyOf": [
                {"type": "number", "minimum": 0},
                {"type": "string", "examples": ["500ms", "30s", "1m30s", "2h"]}
            ]
        })
    }
}

/// A rate or a risk: a fraction (`0.9`) or a percentage (`90%`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate(pub f64);

impl NumberOrString for Rate {
    const FORMS: &'static str = RATE_FORMS;
    fn from_f64(v: f64) -> Result<Self, String> {
        Ok(Rate(v))
    }
    fn from_text(v: &str) -> Result<Self, String> {
        parse_rate(v).map(Rate)
    }
}

impl<'de> Deserialize<'de> for Rate {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(NumberOrStringVisitor(PhantomData))
    }
}

/// A value written as a number or a string (a rate `0.9` or `90%`, a duration `30` or
/// `30s`). One visitor serves every such type rather than `#[serde(untagged)]`: an untagged
/// enum's error says only that no variant matched, where this one's `invalid type` message
/// names the forms ([`Self::FORMS`]) and a bad value keeps its own message (the plan-error
/// snapshots pin both, with file:line:col).
trait NumberOrString: Sized {
    /// The forms accepted, for the `expected …` of a value of the wrong type.
    const FORMS: &'static str;
    /// A whole number; by default the same as the float.
    fn from_u64(v: u64) -> Result<Self, String> {
        Self::from_f64(v as f64)
    }
    /// A negative whole number; by default the same as the float.
    fn from_i64(v: i64) -> Result<Self, String> {
        Self::from_f64(v as f64)
    }
    /// A number with a fraction.
    fn from_f64(v: f64) -> Result<Self, String>;
    /// A string (`90%`, `1m30s`).
    fn from_text(v: &str) -> Result<Self, String>;
}

/// The one visitor of [`NumberOrString`] types.
struct NumberOrStringVisitor<T>(PhantomData<T>);

impl<T: NumberOrString> Visitor<'_> for NumberOrStringVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::FORMS)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_u64(v).map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_i64(v).map_err(E::custom)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_f64(v).map_err(E::custom)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::from_text(v).map_err(E::custom)
    }
}

impl JsonSchema for Rate {
    fn schema_name() -> Cow<'static, str> {
        "Rate".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": RATE_FORMS,
            "anyOf": [
                {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
                {"type": "string", "pattern": "^\\s*[0-9]+(\\.[0-9]*)?\\s*%\\s*$"}
            ]
        })
    }
}

/// `policy:` as written.
#[derive(Debug, Default, Deserialize, JsonSchema)]
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
    /// Producer's risk for the whole suite: each task whose rule is designed (`design:` or
    /// `sequential:` without `alpha`) gets Šidák's `1 - (1 - suite_alpha)^(1/k)` over the k
    /// tasks, and a `suite:` task's share is split again over its test cases, so a healthy
    /// suite (plan tasks and test cases together) fails somewhere with probability at most
    /// `suite_alpha`.
    #[serde(default)]
    #[schemars(with = "Option<Rate>")]
    pub suite_alpha: Option<Spanned<Rate>>,
    /// What an INCONCLUSIVE gate exits with (default `fail`).
    #[serde(default)]
    pub on_inconclusive: OnInconclusive,
    /// Exit codes of `run` that mean the harness, not the agent, failed (e.g. pytest's 4 =
    /// usage error and 5 = no tests collected): the run is a harness error (exit 4).
    #[serde(default)]
    #[schemars(with = "Vec<i32>")]
    pub harness_exit_codes: Vec<Spanned<i32>>,
    /// Trials in parallel (default 1).
    #[serde(default)]
    #[schemars(with = "Option<usize>", range(min = 1))]
    pub jobs: Option<Spanned<usize>>,
    /// Regular expressions whose matches are replaced by `***` in everything stored.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub redact: Vec<Spanned<String>>,
    /// Timeout for tasks that set none (default 10m).
    #[serde(default)]
    #[schemars(with = "Option<DurationSpec>")]
    pub default_timeout: Option<Spanned<DurationSpec>>,
    /// Time between SIGTERM and SIGKILL when a process group is stopped (default 5s).
    #[serde(default)]
    pub kill_grace: Option<DurationSpec>,
    /// The box around each trial's processes (docs/trust.md): `best_effort` (default),
    /// `required`, `off`, or a table with `mode`, `writable` and `pass_env`.
    #[serde(default)]
    pub sandbox: Option<SandboxFile>,
}

/// `policy.sandbox:` as written: a mode, or a table.
#[derive(Debug, JsonSchema)]
#[serde(untagged)]
pub enum SandboxFile {
    /// `best_effort`, `required` or `off`.
    Mode(crate::model::SandboxMode),
    /// The full form.
    Table(SandboxTable),
}

/// By hand rather than `untagged`: YAML 1.1 reads a bare `off` as the boolean false, which
/// here can only mean `off`, and a wrong word deserves a message naming the right ones.
impl<'de> Deserialize<'de> for SandboxFile {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::model::SandboxMode;
        struct V;
        const EXPECTED: &str =
            "`best_effort`, `required`, `off`, or a table with `mode`, `writable` and `pass_env`";
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = SandboxFile;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<SandboxFile, E> {
                if v {
                    Err(E::custom(format!(
                        "`policy.sandbox` is a mode, not a switch: expected {EXPECTED}"
                    )))
                } else {
                    Ok(SandboxFile::Mode(SandboxMode::Off))
                }
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<SandboxFile, E> {
                match v {
                    "best_effort" => Ok(SandboxFile::Mode(SandboxMode::BestEffort)),
                    "required" => Ok(SandboxFile::Mode(SandboxMode::Required)),
                    "off" => Ok(SandboxFile::Mode(SandboxMode::Off)),
                    other => Err(E::custom(format!(
                        "unknown `policy.sandbox` `{other}`: expected {EXPECTED}"
                    ))),
                }
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                map: A,
            ) -> Result<SandboxFile, A::Error> {
                SandboxTable::deserialize(serde::de::value::MapAccessDeserializer::new(map))
                    .map(SandboxFile::Table)
            }
        }
        d.deserialize_any(V)
    }
}

/// `policy.sandbox:` as a table.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SandboxTable {
    /// `best_effort` (default), `required` or `off`.
    #[serde(default)]
    pub mode: crate::model::SandboxMode,
    /// More folders (or files) the task may write, relative to the plan file's folder
    /// (`~/` is the home folder); gate's own files stay out of reach within them.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub writable: Vec<Spanned<String>>,
    /// Withheld CI variables (`GITHUB_OUTPUT`, `GITHUB_TOKEN`, `ACTIONS_*` tokens, …) to
    /// pass to the task anyway.
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    pub pass_env: Vec<Spanned<String>>,
    /// The packages a trial may install into a `node_modules` a node check loads from, in
    /// the folders the trials write: `any`, or a list of names (`[zod, "@types/node"]`). By
    /// default none: a package installed by a new name gets the run no verdict, since a
    /// package there may load a name it builds at run time.
    #[serde(default)]
    pub installs: InstallsFile,
}

/// `policy.sandbox.installs:` as written: `any`, `none`, or a list of package names.
#[derive(Debug, Default)]
pub struct InstallsFile(pub crate::model::Installs);

impl<'de> Deserialize<'de> for InstallsFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use crate::model::Installs;
        struct V;
        const EXPECTED: &str =
            "`any`, `none`, or a list of package names (`[zod, \"@types/node\"]`)";
        impl<'de> Visitor<'de> for V {
            type Value = InstallsFile;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str(EXPECTED)
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<InstallsFile, E> {
                match v {
                    "any" => Ok(InstallsFile(Installs::Any)),
                    "none" => Ok(InstallsFile(Installs::None)),
                    other => Err(E::custom(format!(
                        "unknown `policy.sandbox.installs` `{other}`: expected {EXPECTED}"
                    ))),
                }
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<InstallsFile, A::Error> {
                let mut names: Vec<String> = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    if let Some(why) = package_name_fault(&name) {
                        return Err(de::Error::custom(format!(
                            "`policy.sandbox.installs` `{name}` is not a package name: {why}"
                        )));
                    }
                    if !names.contains(&name) {
                        names.push(name);
                    }
                }
                Ok(InstallsFile(if names.is_empty() {
                    Installs::None
                } else {
                    Installs::Names(names)
                }))
            }
        }
        d.deserialize_any(V)
    }
}

/// Why `name` is not a name node resolves a package by from a `node_modules` (`x`, or
/// `@s/x`), if it is not.
fn package_name_fault(name: &str) -> Option<&'static str> {
    let parts: Vec<&str> = name.split('/').collect();
    // The characters npm allows in a name (URL-safe), which also keep the name plain text
    // in every report that states it.
    let bad = |p: &str| {
        p.is_empty()
            || p == "."
            || p == ".."
            || !p
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
    };
    match parts.as_slice() {
        _ if name.contains('*') => Some("write `any` to allow every name"),
        // Folders of a `node_modules` that hold no package of that name.
        [".bin" | ".pnpm" | "node_modules"] => {
            Some("`.bin`, `.pnpm` and `node_modules` are folders of packages, not one")
        }
        [one] if one.starts_with('@') => Some("a scope alone is no package (`@types/node`)"),
        [one] if bad(one) => {
            Some("a name is made of letters, digits and `-._~` (`zod`, `@types/node`)")
        }
        [scope, one] if !scope.starts_with('@') || bad(&scope[1..]) || bad(one) => {
            Some("a name with a `/` is a scope and a word (`@types/node`)")
        }
        [_] | [_, _] => None,
        _ => Some("a name has at most one `/` (`@types/node`)"),
    }
}

impl JsonSchema for InstallsFile {
    fn schema_name() -> Cow<'static, str> {
        "Installs".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "`any`, `none`, or the package names a trial may install beside a node check's packages",
            "anyOf": [
                {"type": "string", "enum": ["any", "none"]},
                {"type": "array", "items": {"type": "string"}}
            ]
        })
    }
}

/// `policy.transport:` as written.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct TransportFile {
    /// Exit codes of `run` that mean a transport fault (e.g. 75, EX_TEMPFAIL).
    #[serde(default)]
    pub exit_codes: Vec<i32>,
    /// Extra attempts after a transport fault; recorded, never promoted to the grade.
    #[serde(default)]
    #[schemars(with = "Option<u32>", range(max = 100))]
    pub max_retries: Option<Spanned<u32>>,
    /// Exponential backoff between those attempts.
    #[serde(default)]
    #[schemars(with = "Option<BackoffFile>")]
    pub backoff: Option<Spanned<BackoffFile>>,
}

/// `policy.transport.backoff:` as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct BackoffFile {
    /// First delay (default 1s).
    pub min: DurationSpec,
    /// Largest delay (default 30s).
    pub max: DurationSpec,
}

/// The JSON Schema of the plan file (`gate schema plan`), derived from [`PlanFile`].
pub fn json_schema() -> schemars::Schema {
    schemars::schema_for!(PlanFile)
}

/// For serde's "missing field `NAME`": the keys of every mapping in the plan schema that
/// requires `NAME`, e.g. "`single` takes `n`, `c` (required)". Serde names only the missing
/// key; this names what the mapping accepts, read from the same schema the loader derives.
///
/// When several mappings require `NAME` (`healthy` is required by `sequential` and `design`),
/// the one whose key appears last in `before` (the file up to the error) is named alone.
pub fn missing_field_hint(field: &str, before: &str) -> Option<String> {
    let schema = json_schema();
    let mut found = Vec::new();
    walk(schema.as_value(), "the plan", field, &mut found);
    found.dedup();
    let nearest = found
        .iter()
        .filter_map(|hint| {
            let key = hint.strip_prefix('`')?.split('`').next()?;
            before.rfind(&format!("{key}:")).map(|at| (at, hint))
        })
        .max_by_key(|(at, _)| *at)
        .map(|(_, hint)| hint.clone());
    match nearest {
        Some(hint) if found.len() > 1 => Some(hint),
        _ => (!found.is_empty()).then(|| found.join("; or ")),
    }
}

fn walk(v: &serde_json::Value, name: &str, field: &str, found: &mut Vec<String>) {
    use serde_json::Value;
    let Value::Object(map) = v else { return };
    if let (Some(Value::Object(props)), Some(Value::Array(required))) =
        (map.get("properties"), map.get("required"))
        && required.iter().any(|r| r == field)
    {
        let required: Vec<&str> = required.iter().filter_map(Value::as_str).collect();
        let optional: Vec<String> = props
            .keys()
            .filter(|k| !required.contains(&k.as_str()) && !k.starts_with('$'))
            .map(|k| format!("`{k}`"))
            .collect();
        let required: Vec<String> = required.iter().map(|k| format!("`{k}`")).collect();
        let mut s = format!("{name} takes {} (required)", required.join(", "));
        if !optional.is_empty() {
            s.push_str(&format!(" and {} (optional)", optional.join(", ")));
        }
        found.push(s);
    }
    for (key, child) in map {
        let child_name = match key.as_str() {
            "properties" | "$defs" => {
                if let Value::Object(entries) = child {
                    for (k, c) in entries {
                        let n = if key == "$defs" {
                            def_name(k)
                        } else {
                            format!("`{k}`")
                        };
                        walk(c, &n, field, found);
                    }
                }
                continue;
            }
            _ => name.to_string(),
        };
        match child {
            Value::Array(items) => items
                .iter()
                .for_each(|c| walk(c, &child_name, field, found)),
            c => walk(c, &child_name, field, found),
        }
    }
}

/// `TaskFile` → "a task", `BackoffFile` → "`backoff`": how people call a schema definition.
fn def_name(def: &str) -> String {
    match def {
        "TaskFile" => "a task".to_string(),
        other => format!(
            "`{}`",
            other
                .trim_end_matches("File")
                .trim_end_matches("Spec")
                .to_lowercase()
        ),
    }
}

#[cfg(test)]
mod tests {
    /// The schema's bound on `n` is the loader's (a literal there, since schemars takes no
    /// path expression in `range`).
    #[test]
    fn the_schema_bound_on_n_is_the_loaders() {
        assert_eq!(crate::stats::MAX_TRIALS_LIMIT, 1_000_000);
    }
}
