//! The shared vocabulary of `gate`: outcomes, verdicts, sampling rules and run policies.
//!
//! These types sit below every other module — the ledger records them, the runner produces
//! them, the sampler consumes them, the reports render them — so they live here, with no I/O
//! and no dependency on any of those modules (nor on `cli`); only on the pure [`crate::stats`],
//! whose lattice a calibrated or staged rule is recorded as. The words are the ones defined in
//! docs/ARCHITECTURE.md.

use serde::{Deserialize, Serialize};

use crate::stats::lattice::Boundaries;

/// A resolved sampling rule, as recorded in the ledger header for each task.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Sampling {
    /// Run `n` trials; PASS iff failures <= `c`. Curtailed: stops once the verdict is certain.
    Single {
        /// Trials to grade.
        n: u64,
        /// Acceptance number: failures tolerated.
        c: u64,
    },
    /// A sequential test of H0: p = healthy against H1: p = regressed, truncated at
    /// `max_trials`: the calibrated lattice, or Wald's SPRT (see [`SequentialRule`]).
    Sequential {
        /// Healthy per-trial success rate p0.
        healthy: f64,
        /// Regressed per-trial success rate p1 (< p0).
        regressed: f64,
        /// Producer's risk.
        alpha: f64,
        /// Consumer's risk.
        beta: f64,
        /// Graded trials after which the test stops INCONCLUSIVE.
        max_trials: u64,
        /// Which rule decides. A ledger written before calibrated rules existed has no
        /// `rule` and ran Wald's test, so that is the default when reading.
        #[serde(default)]
        rule: SequentialRule,
    },
}

/// The decision rule of a sequential plan.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SequentialRule {
    /// Wald's SPRT with his textbook thresholds `ln(beta/(1-alpha))`, `ln((1-beta)/alpha)`.
    #[default]
    Wald,
    /// The calibrated design of [`crate::stats::calibrated`], recorded as its lattice so a
    /// replay decides with exactly the rule that ran.
    Calibrated {
        /// The boundaries.
        lattice: Boundaries,
    },
    /// A staged rule ([`crate::stats::staged`]): decisions only after every `stage` graded
    /// trials, so each stage can run as parallel shards. Recorded as its lattice, whose rows
    /// between stage ends are "continue".
    Staged {
        /// Trials per stage (B).
        stage: u64,
        /// Whether the lattice is Wald's thresholds at stage ends (else the calibrated design).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        wald: bool,
        /// The boundaries.
        lattice: Boundaries,
    },
}

impl SequentialRule {
    /// `wald` or `calibrated`, as written in plan files and printed in reports.
    pub fn name(&self) -> &'static str {
        match self {
            SequentialRule::Wald => "wald",
            SequentialRule::Calibrated { .. } => "calibrated",
            SequentialRule::Staged { .. } => "staged",
        }
    }

    /// The recorded lattice, when the rule is recorded as one (calibrated and staged).
    pub fn recorded_lattice(&self) -> Option<&Boundaries> {
        match self {
            SequentialRule::Wald => None,
            SequentialRule::Calibrated { lattice } | SequentialRule::Staged { lattice, .. } => {
                Some(lattice)
            }
        }
    }
}

impl Sampling {
    /// Trials per stage of a staged rule (None for every other rule).
    pub fn stage(&self) -> Option<u64> {
        match self {
            Sampling::Sequential {
                rule: SequentialRule::Staged { stage, .. },
                ..
            } => Some(*stage),
            _ => None,
        }
    }

    /// Trials per stage when the rule runs in a staged run (`gate run --stage S`): a staged
    /// rule's B; a single plan's n (it runs whole in stage 1, sharded like the stage, and
    /// decides at its end); None for a fully sequential rule, which decides trial by trial
    /// and cannot run in stages.
    pub fn stage_length(&self) -> Option<u64> {
        match *self {
            Sampling::Single { n, .. } => Some(n),
            _ => self.stage(),
        }
    }

    /// The rule's name: `single`, `calibrated`, `wald` or `staged`.
    pub fn rule_name(&self) -> &'static str {
        match self {
            Sampling::Single { .. } => "single",
            Sampling::Sequential { rule, .. } => rule.name(),
        }
    }

    /// The most graded trials this rule can ever consume (n, or max_trials).
    pub fn max_graded(&self) -> u64 {
        match *self {
            Sampling::Single { n, .. } => n,
            Sampling::Sequential { max_trials, .. } => max_trials,
        }
    }

    /// The plan in words, e.g. "33 trials, pass if at most 6 fail".
    pub fn describe(&self) -> String {
        match *self {
            Sampling::Single { n, c } => format!(
                "{n} trial{}, pass if at most {c} fail",
                if n == 1 { "" } else { "s" }
            ),
            Sampling::Sequential {
                healthy,
                regressed,
                alpha,
                beta,
                max_trials,
                ref rule,
            } => format!(
                "{} sequential test of {} vs {} (alpha {}, beta {}), at most {max_trials} trials{}",
                match rule {
                    SequentialRule::Wald => "Wald's",
                    SequentialRule::Calibrated { .. } => "calibrated",
                    SequentialRule::Staged { wald: true, .. } => "Wald's staged",
                    SequentialRule::Staged { .. } => "calibrated staged",
                },
                pct(healthy),
                pct(regressed),
                alpha,
                beta,
                match rule {
                    SequentialRule::Staged { stage, .. } => format!(
                        " in stages of {stage} ({} stages at most)",
                        crate::stats::staged::stage_of(*stage, max_trials)
                    ),
                    _ => String::new(),
                }
            ),
        }
    }
}

fn pct(p: f64) -> String {
    let s = format!("{:.4}", p * 100.0);
    let s = s.trim_end_matches('0').trim_end_matches('.');
    format!("{s}%")
}

/// The three-valued verdict, per task and for the whole gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    /// The evidence says healthy.
    Pass,
    /// The evidence says regressed.
    Fail,
    /// The evidence could not decide (budget spent, trials missing, interrupted).
    Inconclusive,
}

impl Verdict {
    /// "PASS", "FAIL" or "INCONCLUSIVE".
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Pass => "PASS",
            Verdict::Fail => "FAIL",
            Verdict::Inconclusive => "INCONCLUSIVE",
        }
    }

    /// The gate's verdict over tasks: FAIL if any FAILs, else INCONCLUSIVE if any is, else PASS.
    pub fn combine(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        let mut out = Verdict::Pass;
        for v in verdicts {
            match v {
                Verdict::Fail => return Verdict::Fail,
                Verdict::Inconclusive => out = Verdict::Inconclusive,
                Verdict::Pass => {}
            }
        }
        out
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a task or a whole gate came to: a [`Verdict`], or a harness error that left none.
///
/// A harness error (a broken result file, a ledger that could not be written, a task whose
/// trials could not be graded) publishes no verdict at all — the run exits 4 — which is not
/// the same as INCONCLUSIVE. On the wire (ledger rows, `--json`) it is written as the verdict's
/// name or `null`, exactly as the `Option<Verdict>` it replaces, so ledgers written by earlier
/// versions read back unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(from = "Option<Verdict>", into = "Option<Verdict>")]
pub enum Judgement {
    /// The rule reached (or was forced to) a verdict.
    Verdict(Verdict),
    /// A harness error invalidated the task or the run: no verdict is published.
    HarnessError,
}

impl Judgement {
    /// The verdict, or `None` after a harness error.
    pub fn verdict(self) -> Option<Verdict> {
        match self {
            Judgement::Verdict(v) => Some(v),
            Judgement::HarnessError => None,
        }
    }
}

impl From<Verdict> for Judgement {
    fn from(v: Verdict) -> Self {
        Judgement::Verdict(v)
    }
}

impl From<Option<Verdict>> for Judgement {
    fn from(v: Option<Verdict>) -> Self {
        v.map_or(Judgement::HarnessError, Judgement::Verdict)
    }
}

impl From<Judgement> for Option<Verdict> {
    fn from(j: Judgement) -> Self {
        j.verdict()
    }
}

/// The graded (or not) result of one trial, as the sampler sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrialOutcome {
    /// Attempt 1 passed.
    Pass,
    /// Attempt 1 failed.
    Fail,
    /// Attempt 1 was a declared fault: neither pass nor fail; a replacement may be drawn.
    Unavailable,
}

/// Counts of consumed outcomes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tally {
    /// Graded passes.
    pub passed: u64,
    /// Graded failures.
    pub failed: u64,
    /// Unavailable trials (faults under the declared policy).
    pub unavailable: u64,
}

/// Counts at a task's decision. `run` = passed + failed + unavailable.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Counts {
    /// Trials whose attempt 1 finished and was consumed in ordinal order.
    pub run: u64,
    /// Graded passes.
    pub passed: u64,
    /// Graded failures.
    pub failed: u64,
    /// Unavailable trials.
    pub unavailable: u64,
    /// Trials killed in flight (not counted).
    pub cancelled: u64,
    /// Trials that finished beyond the decision point in ordinal order (not counted).
    pub excluded: u64,
}

impl Counts {
    /// Counts from a sampler tally plus the uncounted trials.
    pub fn from_tally(t: Tally, cancelled: u64, excluded: u64) -> Self {
        Counts {
            run: t.passed + t.failed + t.unavailable,
            passed: t.passed,
            failed: t.failed,
            unavailable: t.unavailable,
            cancelled,
            excluded,
        }
    }
}

impl Tally {
    /// Graded trials: passes plus failures.
    pub fn graded(&self) -> u64 {
        self.passed + self.failed
    }
}

/// Shard `k` of `m` (1-based `k`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct Shard {
    /// This shard, 1..=m.
    pub k: u64,
    /// Number of shards.
    pub m: u64,
}

/// Most shards a run may be split into: far more machines than any CI fan-out, and small
/// enough that every per-shard table stays small.
pub const MAX_SHARDS: u64 = 10_000;

impl Shard {
    /// Whether this is a shard at all: 1 <= k <= m <= [`MAX_SHARDS`].
    pub fn check(&self) -> Result<(), String> {
        if self.k == 0 || self.m == 0 || self.k > self.m {
            return Err(format!(
                "`{}/{}` is not a shard (need 1 <= K <= M)",
                self.k, self.m
            ));
        }
        if self.m > MAX_SHARDS {
            return Err(format!(
                "{} shards is more than the {MAX_SHARDS} gate supports",
                self.m
            ));
        }
        Ok(())
    }

    /// Whether trial `ordinal` belongs to this shard.
    pub fn owns(&self, ordinal: u64) -> bool {
        (ordinal - 1) % self.m == self.k - 1
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    /// `K/M` with 1 <= K <= M <= [`MAX_SHARDS`] (the value of `--shard`); the error names
    /// the value and says what is expected.
    fn from_str(s: &str) -> Result<Shard, String> {
        let bad = || format!("`--shard {s}`: expected K/M with 1 <= K <= M, e.g. `--shard 2/3`");
        let (k, m) = s.split_once('/').ok_or_else(bad)?;
        let (k, m): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            m.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || m == 0 || k > m {
            return Err(bad());
        }
        let shard = Shard { k, m };
        shard.check().map_err(|e| format!("`--shard {s}`: {e}"))?;
        Ok(shard)
    }
}

/// What a timeout counts as.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum TimeoutPolicy {
    /// A timed-out trial is a failure.
    #[default]
    Fail,
    /// A timed-out trial is unavailable: neither pass nor fail.
    Unavailable,
}

/// `policy.sandbox`: how hard gate insists on boxing each trial's processes.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum SandboxMode {
    /// Every wall the kernel can raise; the rest is recorded as missing (the default).
    #[default]
    BestEffort,
    /// Every wall, or no run at all: a kernel that cannot raise one is a harness error.
    Required,
    /// No filesystem or signal wall (recorded as such); the environment is still filtered.
    Off,
}

/// The plan's `policy.sandbox`, resolved.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SandboxPolicy {
    /// How hard gate insists.
    pub mode: SandboxMode,
    /// Extra writable roots (absolute; they existed when the plan was loaded).
    pub writable: Vec<std::path::PathBuf>,
    /// Withheld variables the plan lets through anyway.
    pub pass_env: Vec<String>,
    /// The packages a trial may install beside a node check's packages
    /// (`policy.sandbox.installs`).
    pub installs: Installs,
}

/// `policy.sandbox.installs`: which new package names a trial may add to a `node_modules`
/// that gate watches for a node check (one in the folders the trials write). A package there
/// at the start may load a name it builds at run time (`["eq", "color"].join("-")`), which
/// no reading of its code finds: a package a trial adds by that name runs inside the check.
/// So by default no new name may be added, and the plan names the ones an agent may install.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Installs {
    /// No new package name: one added gets no verdict (the default).
    #[default]
    None,
    /// These names (`zod`, `@types/node`), each still refused where a package there at the
    /// start writes it as a string.
    Names(Vec<String>),
    /// Any name but those a package there at the start writes as a string: a name a
    /// package builds at run time is not seen.
    Any,
}

impl Installs {
    /// Whether a trial may add a package by `name` (`x`, or `@s/x`).
    pub fn allows(&self, name: &str) -> bool {
        match self {
            Installs::None => false,
            Installs::Names(names) => names.iter().any(|n| n == name),
            Installs::Any => true,
        }
    }

    /// Whether no new name is allowed (the default, which the ledger does not write).
    pub fn is_none(&self) -> bool {
        *self == Installs::None
    }
}

/// Variables never passed to a task unless `policy.sandbox.pass_env` names them: the
/// GitHub workflow-command files (a task appending to them forges the step's outputs,
/// environment, `PATH`, state or summary) and the runner's credentials.
pub const WITHHELD_ENV: &[&str] = &[
    "GITHUB_OUTPUT",
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
    "GITHUB_TOKEN",
    "GH_TOKEN",
    // The GitHub CLI's tokens for GitHub Enterprise Server.
    "GH_ENTERPRISE_TOKEN",
    "GITHUB_ENTERPRISE_TOKEN",
    "ACTIONS_RUNTIME_TOKEN",
    "ACTIONS_RUNTIME_URL",
    "ACTIONS_ID_TOKEN_REQUEST_URL",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
    "ACTIONS_CACHE_URL",
    "ACTIONS_CACHE_SERVICE_V2",
    "ACTIONS_RESULTS_URL",
];

/// Prefixes of runner variables withheld too (new token or service URLs the runner adds).
const WITHHELD_PREFIXES: &[&str] = &[
    "ACTIONS_RUNTIME_",
    "ACTIONS_ID_TOKEN_",
    "ACTIONS_CACHE_",
    "ACTIONS_RESULTS_",
];

/// Whether `name` is withheld from tasks by default.
pub fn is_withheld(name: &str) -> bool {
    WITHHELD_ENV.contains(&name) || WITHHELD_PREFIXES.iter().any(|p| name.starts_with(p))
}

/// The filesystem wall of a run's box, as it stood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FilesystemWall {
    /// Writes only beneath the task's writable roots (Landlock ABI 3 or later).
    Enforced,
    /// As `enforced`, except that `truncate(2)` by path is not confined (Landlock ABI 1-2).
    EnforcedExceptTruncate,
    /// No filesystem wall: the task could write anything gate's user can.
    Unconfined,
}

/// The mount layer of a run's box, as it stood.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum MountWall {
    /// Each trial ran in a mount namespace of its own in which gate's state inside the
    /// task's writable roots was bind-mounted read-only; the roots were otherwise writable
    /// whole (new files beside the plan included).
    StateReadOnly,
    /// No mount layer (user namespaces refused, no Landlock, or a ledger written before the
    /// layer existed): the Landlock allow-list alone, under which nothing can be created in
    /// a folder that holds gate's state.
    #[default]
    None,
}

/// The wall between a run's trials and gate's own process, as it stood.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SignalWall {
    /// Landlock signal scoping (ABI 6 or later): no signal leaves the box.
    Scoped,
    /// A seccomp filter refuses signals aimed at gate's process, its process group or
    /// everyone (`kill -1`); tracing is refused by Landlock.
    Filtered,
    /// No wall: the task could stop or kill gate.
    Unguarded,
}

/// Which walls of the box stood around the trials of a run: recorded in the ledger header
/// (and in each resume row), stated by every report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Walls {
    /// The plan's `policy.sandbox`.
    pub policy: SandboxMode,
    /// The Landlock ABI version the kernel offers (0: none).
    pub landlock_abi: u32,
    /// The filesystem wall.
    pub filesystem: FilesystemWall,
    /// The mount layer under the filesystem wall (`none` in ledgers written before it).
    #[serde(default)]
    pub mounts: MountWall,
    /// The signal and tracing wall.
    pub signals: SignalWall,
    /// The CI variables the plan let through (`policy.sandbox.pass_env`); every other
    /// workflow-command file and runner token was withheld.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pass_env: Vec<String>,
    /// Whether gate had erased its own initial environment block (what `/proc/PID/environ`
    /// shows a task) before the trials; false in ledgers written before it did.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub environ_erased: bool,
    /// Whether abstract unix sockets outside the box were out of the task's reach (Landlock
    /// ABI 6 scoping); false in ledgers written before it was raised. Path sockets are
    /// reachable either way.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub sockets_scoped: bool,
    /// Whether each trial process ran in a PID namespace of its own, so that every
    /// descendant died with it however it detached; false in ledgers written before, and
    /// where the mount layer is unavailable (gate's bounded orphan sweep only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pid_namespace: bool,
    /// What the trials shared of `/dev/shm` and System V / POSIX IPC, where one trial (a
    /// compare's head) could leave state another (base) reads; unknown in ledgers written
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "ShmWall::is_unknown")]
    pub shm: ShmWall,
    /// The new package names the plan let a trial add beside a node check's packages
    /// (`policy.sandbox.installs`); none in ledgers written before it was recorded, which
    /// accepted any name no package there wrote.
    #[serde(default, skip_serializing_if = "Installs::is_none")]
    pub installs: Installs,
    /// The tasks whose trials wrote only the folders their `writes:` names, by task id, each
    /// folder relative to the task's `cwd` (and base's); the rest of those tasks' folders was
    /// read-only to them. Empty where every task's trials wrote its whole folder (and in
    /// ledgers written before `writes:`).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub writes: std::collections::BTreeMap<String, Vec<String>>,
}

/// What a run's trials shared of `/dev/shm` and IPC (review 5, K1).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum ShmWall {
    /// Not recorded (a ledger written before it was, or the box off).
    #[default]
    Unknown,
    /// Each trial process had a fresh `/dev/shm` (a tmpfs of its own) and an IPC namespace
    /// of its own.
    Private,
    /// `/dev/shm` and IPC were the machine's, shared by every trial (no mount layer).
    Shared,
    /// No mount layer, and the plan compares head with base: `/dev/shm` was not writable to
    /// the trials (so head could not leave state there for base); IPC was shared.
    Withheld,
}

impl ShmWall {
    fn is_unknown(&self) -> bool {
        *self == ShmWall::Unknown
    }
}

/// What an INCONCLUSIVE gate does to the exit code.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum OnInconclusive {
    /// Exit 3: the step goes red.
    #[default]
    Fail,
    /// Exit 0: the step stays green (the verdict is still INCONCLUSIVE).
    Pass,
}

/// The rates and risks a task's plan was designed for.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Rates {
    /// Healthy per-trial success rate p0.
    pub healthy: f64,
    /// Regressed per-trial success rate p1.
    pub regressed: f64,
    /// Producer's risk tolerated.
    pub alpha: f64,
    /// Consumer's risk tolerated.
    pub beta: f64,
}

/// Why an attempt is not a plain content grade.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// The attempt exceeded its timeout and its process group was killed.
    Timeout,
    /// A declared transport fault (exit code or `"fault": "transport"` in the result file).
    Transport,
    /// Stopped by gate: a verdict was reached or the run was interrupted.
    Cancelled,
    /// The harness could not run the task (exit 126/127, missing check, bad result file).
    Harness,
}

/// What an attempt amounted to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// Run exited 0, check (if any) exited 0, result file did not say otherwise.
    Pass,
    /// Anything else that is a content grade (including a timeout under `timeout: fail`).
    Fail,
    /// A declared fault: not a pass and not a failure.
    Unavailable,
    /// Killed by gate before it finished.
    Cancelled,
    /// The harness could not run it; the run is invalid.
    HarnessError,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judgement_is_written_as_the_option_it_replaced() {
        // Ledgers and `--json` reports written before the enum existed hold a verdict's name
        // or `null`: both directions must stay byte-identical.
        for (j, wire) in [
            (Judgement::Verdict(Verdict::Pass), r#""PASS""#),
            (Judgement::Verdict(Verdict::Fail), r#""FAIL""#),
            (
                Judgement::Verdict(Verdict::Inconclusive),
                r#""INCONCLUSIVE""#,
            ),
            (Judgement::HarnessError, "null"),
        ] {
            assert_eq!(serde_json::to_string(&j).unwrap(), wire);
            assert_eq!(serde_json::from_str::<Judgement>(wire).unwrap(), j);
            let old: Option<Verdict> = serde_json::from_str(wire).unwrap();
            assert_eq!(Judgement::from(old), j);
            assert_eq!(j.verdict(), old);
        }
    }

    #[test]
    fn shard_flags_parse_or_say_what_is_expected() {
        assert_eq!("2/3".parse::<Shard>(), Ok(Shard { k: 2, m: 3 }));
        assert_eq!(" 1 / 1 ".parse::<Shard>(), Ok(Shard { k: 1, m: 1 }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "-1/3", ""] {
            let e = bad.parse::<Shard>().unwrap_err();
            assert!(e.contains("expected K/M"), "{bad}: {e}");
        }
        let e = "1/18446744073709551615".parse::<Shard>().unwrap_err();
        assert!(e.contains("more than the 10000"), "{e}");
    }

    #[test]
    fn a_ledger_sequential_rule_without_rule_is_wald() {
        // Ledgers written before calibrated rules existed must still replay as they ran.
        let old = r#"{"sequential":{"healthy":0.9,"regressed":0.7,"alpha":0.05,"beta":0.1,"max_trials":66}}"#;
        let s: Sampling = serde_json::from_str(old).unwrap();
        assert_eq!(s.rule_name(), "wald");
        let lattice = crate::stats::calibrated::design_calibrated(0.9, 0.7, 0.05, 0.1, None)
            .unwrap()
            .boundaries;
        let new = Sampling::Sequential {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
            max_trials: 66,
            rule: SequentialRule::Calibrated { lattice },
        };
        let json = serde_json::to_string(&new).unwrap();
        assert!(json.contains(r#""rule":{"calibrated":{"lattice":{"max_trials":66,"changes":"#));
        assert_eq!(serde_json::from_str::<Sampling>(&json).unwrap(), new);
        assert_eq!(new.lattice().unwrap().max_trials(), 66);
    }
}
