//! A suite task's trials: one run of the whole suite each, every test case judged.
//!
//! [`SuiteLauncher`] is the [`Launcher`] of a suite task: trial k runs the suite as one
//! attempt ([`super::run_attempt`]: the same process group, timeout, box and captures as any
//! task's, with `GATE_JUNIT` set to a fresh path for that run, and no transport retries),
//! then reads the result file with the readers of `gate ingest` and sends one row per test
//! case (task `SUITE/CASE`, attempt 1 graded) before the suite's own row, which records the
//! run: its exit, duration and the file's SHA-256. The scheduler ([`super::scheduler::run_suite`])
//! writes each row as it arrives and hands the test-case rows to [`SuiteCases`], which feeds
//! each test case's own ordered sampler; the suite runs again while any test case is
//! undecided, and a decided test case's later rows are recorded and excluded by its sampler.
//!
//! The suite's own failure is not a test's: a run that times out, is killed by a signal,
//! exits with a declared harness (or transport) exit code, writes no result file gate can
//! read, records no test case that ran, records a test case twice, or records other test
//! cases than the runs before it (their ordinals would no longer line up) is a harness
//! error, and no verdict is published.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use super::AttemptSpec;
use super::launcher::{Launcher, ProcessLauncher, attempt_or_internal_error};
use super::retry::TrialMsg;
use super::scheduler::Cases;
use crate::ingest::{self, Options};
use crate::ledger::{AttemptRow, DecisionRow, Family, SuiteRun, suite_case_id, suite_of};
use crate::model::{Fault, Outcome, Sampling, Shard};
use crate::plan::SuiteTask;
use crate::rule::Decision;
use crate::sampler::OrderedSampler;

/// Test cases a harness error names, at most.
const NAMED: usize = 5;

/// Runs a suite task's trials: the task's [`ProcessLauncher`] settings, one attempt each.
#[derive(Debug, Clone)]
pub struct SuiteLauncher {
    /// The suite's command, box, timeout and environment.
    pub inner: ProcessLauncher,
    /// Where each run writes its results: `None` for `$GATE_JUNIT`, else this path.
    pub results: Option<PathBuf>,
    /// How the results are read.
    pub opts: Options,
    /// The task's own `suite.harness_exit_codes`, to name in a harness error.
    own_harness_codes: Vec<i32>,
    /// What the runs and the test cases' samplers share: the suite's cases, its family
    /// design, the cases decided so far.
    state: Arc<Mutex<SuiteState>>,
    /// Each run asked for: trial → the case ids (sorted) it must record, or `None` for all.
    asked: Arc<Mutex<BTreeMap<u64, Option<Vec<String>>>>>,
    /// The side this launcher runs in a `compare:` suite (`None` in a plain suite): a
    /// mismatch with the other side's run names the side that lacks the cases.
    pub(super) side: Option<crate::pair_sampler::Side>,
    /// The evidence of every run of this launcher read so far (trial, fingerprint): one side
    /// of a `compare:` suite has a launcher of its own, so each side is compared with itself.
    /// A run whose result file is an earlier run's again is no new trial (review 7, c19/c44).
    read: Arc<Mutex<Vec<(u64, ingest::identity::Fingerprint)>>>,
}

/// What a resumed suite (plain or `compare:`) takes from the earlier session's ledger once
/// its rows are consumed: the cases recorded so far become the reference every later run is
/// held to (`known`, any order), and the cases with a decision row are returned, so no run
/// asks for them again.
pub(super) fn resumed_cases(
    state: &Mutex<SuiteState>,
    mut known: Vec<String>,
    ledger: &crate::ledger::Ledger,
    suite: &str,
) -> HashSet<String> {
    known.sort_unstable();
    if !known.is_empty() {
        state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .reference = Some(known);
    }
    ledger
        .decisions()
        .filter(|d| suite_of(&d.task) == Some(suite))
        .map(|d| d.task.clone())
        .collect()
}

/// On a resume, what the earlier session's rows show of the cases a side never ran: each
/// side ran the cases it has rows of; a case a run row names as never run ([`SuiteRun::never_ran`])
/// that a side has no row of was skipped by every run of that side the ledger recorded (every
/// run is asked for it, and a run lacking it is a harness error with no record). Returns
/// those cases, which belong to the reference.
pub(super) fn resumed_unrun(
    state: &mut SuiteState,
    ledger: &crate::ledger::Ledger,
    suite: &str,
) -> Vec<String> {
    let mut named: Vec<String> = Vec::new();
    for s in ledger
        .attempts()
        .filter(|r| r.task == suite)
        .filter_map(|r| r.suite_run.as_ref())
    {
        for id in &s.never_ran {
            if !named.contains(id) {
                named.push(id.clone());
            }
        }
    }
    let mut rows: HashSet<(Option<crate::pair_sampler::Side>, &str, u64)> = HashSet::new();
    for r in ledger
        .attempts()
        .filter(|r| suite_of(&r.task) == Some(suite))
    {
        state.ran.entry(r.side).or_default().insert(r.task.clone());
        rows.insert((r.side, r.task.as_str(), r.trial));
    }
    for r in ledger
        .attempts()
        .filter(|r| r.task == suite && r.suite_run.is_some())
    {
        for id in &named {
            if rows.contains(&(r.side, id.as_str(), r.trial)) {
                continue;
            }
            if !state.has_run(r.side, id) {
                state
                    .unrun_skips
                    .entry((r.side, id.clone()))
                    .or_default()
                    .push(r.trial);
            } else if r.side == Some(crate::pair_sampler::Side::Base) {
                // Base ran it after skipping it in this run: the pair has no base side.
                state.base_gaps.insert(id.clone());
            }
        }
    }
    named
}

/// What a suite task's runs ([`SuiteLauncher`]) and its test cases ([`SuiteCases`]) share.
#[derive(Debug)]
pub struct SuiteState {
    /// The rule the plan gives each case, and the rates it was designed for.
    pub(super) plan_rule: (Sampling, Option<crate::model::Rates>),
    /// A `compare:` suite's rule (each case paired head against base:
    /// [`super::suite_pairs`]), whose family design is [`crate::plan::family::design_compare`].
    pub(super) compare: Option<crate::plan::compare_rule::CompareRule>,
    /// The test cases every run may record (sorted task ids), once one run has (or the
    /// resumed ledger has). In a `compare:` suite, both sides' runs.
    pub(super) reference: Option<Vec<String>>,
    /// In a `compare:` suite, the side and the suite run whose record fixed `reference`
    /// (`None` when a resumed ledger did).
    pub(super) reference_by: Option<(crate::pair_sampler::Side, u64)>,
    /// The family design (`crate::plan::family`), once the cases are known; `None` when
    /// the rule has none (a fixed `single:`).
    pub(super) family: Option<Family>,
    /// Test cases (task ids) whose sampler has decided: later runs do not ask for them.
    pub(super) decided: HashSet<String>,
    /// Whether runs are asked for the undecided cases only. Not in a shard: a shard's
    /// sampler sees only its own ordinals, and every shard's runs must record every case
    /// for the merged replay to consume each case's ordinals in order.
    pub(super) filter: bool,
    /// The test cases (sorted task ids) a resumed ledger's rows name when it recorded no
    /// family design although the rule has one: the interrupted session ended between the
    /// case rows of the run that fixed the cases and that run's own row, which carries the
    /// design (review 9, a06/a11/a25). Nothing is fixed from those rows: this session's
    /// first run read fixes the cases and designs the family as a fresh session does, and
    /// must record every case they name.
    pub(super) resumed: Option<Vec<String>>,
    /// Per side (`None` in a plain suite), the test cases that side ran in some run read so
    /// far. A case of `reference` a side never ran is skipped in every run of that side so
    /// far: its skips are no trials ([`SuiteRun::never_ran`]), and at the end it is decided
    /// INCONCLUSIVE (review 8, a15; on base, review 10, a15).
    pub(super) ran: BTreeMap<Option<crate::pair_sampler::Side>, HashSet<String>>,
    /// Per side and case, the runs read so far in which that side skipped the case before it
    /// ever ran it: no row was written for them. Once the side runs the case, those runs'
    /// skips are what a skip is in a run after one that ran it (review 7, c35): a failed
    /// trial in a plain suite and on head ([`Self::unrun_skips_ran`]), a pair with no base
    /// side on base (`base_gaps`). Review 10, a10.
    pub(super) unrun_skips: BTreeMap<(Option<crate::pair_sampler::Side>, String), Vec<u64>>,
    /// In a `compare:` suite, the cases base skipped in a run before it first ran them: those
    /// pairs have no base side and never complete, so the case is judged only up to the first
    /// of them (as `gate ingest --base` reads a one-sided pair: a gap), never by reading the
    /// skip as a base result.
    pub(super) base_gaps: HashSet<String>,
}

impl SuiteState {
    /// The rule each test case is judged by: the family's, else the plan's.
    fn case_rule(&self) -> &Sampling {
        self.family
            .as_ref()
            .map_or(&self.plan_rule.0, |f| &f.sampling)
    }

    /// Whether the rule gives the cases a family design once K is known: every rule but a
    /// fixed `single: {n, c}` (no healthy rate, no alpha to share; [`crate::plan::family::design`]).
    pub(super) fn owes_family(&self) -> bool {
        self.compare.is_some() || !matches!(self.plan_rule, (Sampling::Single { .. }, None))
    }

    /// Whether a resume must leave the cases unfixed until this session's first run is read:
    /// the ledger holds case rows, and no family design although the rule has one, or no
    /// row of a whole suite run at all (`first_run_recorded` false: the interrupted session
    /// ended among the first run's case rows, which name only some of the cases; review
    /// 10, a18). Then `known` (the ids of those rows) is kept in [`Self::resumed`] and
    /// `true` is returned.
    pub(super) fn defer_resumed(&mut self, known: &[String], first_run_recorded: bool) -> bool {
        let lost_design = self.family.is_none() && self.owes_family();
        if known.is_empty() || (!lost_design && first_run_recorded) {
            return false;
        }
        let mut known = known.to_vec();
        known.sort_unstable();
        self.resumed = Some(known);
        true
    }

    /// The cases of `reference` `side` has never run in a run read so far (sorted).
    pub(super) fn never_ran(&self, side: Option<crate::pair_sampler::Side>) -> Vec<String> {
        let ran = self.ran.get(&side);
        self.reference
            .iter()
            .flatten()
            .filter(|id| !ran.is_some_and(|r| r.contains(*id)))
            .cloned()
            .collect()
    }

    /// Whether `side` has run test case `id` in a run read so far.
    pub(super) fn has_run(&self, side: Option<crate::pair_sampler::Side>, id: &str) -> bool {
        self.ran.get(&side).is_some_and(|r| r.contains(id))
    }

    /// Take what a run of `side` (trial `trial`) shows of the cases it skipped (`skipped`,
    /// among those it was asked for) and ran (`ran`): returns the skips that are failed trials
    /// of this run (the side ran the case before), the skips that are no trial (the side never
    /// ran the case: [`Self::unrun_skips`]), and the earlier runs' skips that become failed
    /// trials now that this run ran the case (case, trial), in a plain suite and on head.
    pub(super) fn unrun_skips_ran(
        &mut self,
        side: Option<crate::pair_sampler::Side>,
        trial: u64,
        skipped: &[String],
        ran: &[String],
    ) -> (Vec<String>, Vec<String>, Vec<(String, u64)>) {
        let mut failed = Vec::new();
        let mut unrun = Vec::new();
        for id in skipped {
            if self.has_run(side, id) {
                failed.push(id.clone());
            } else {
                self.unrun_skips
                    .entry((side, id.clone()))
                    .or_default()
                    .push(trial);
                unrun.push(id.clone());
            }
        }
        let mut earlier = Vec::new();
        for id in ran {
            if !self.ran.entry(side).or_default().insert(id.clone()) {
                continue;
            }
            let Some(trials) = self.unrun_skips.remove(&(side, id.clone())) else {
                continue;
            };
            if side == Some(crate::pair_sampler::Side::Base) {
                self.base_gaps.insert(id.clone());
            } else {
                earlier.extend(trials.into_iter().map(|t| (id.clone(), t)));
            }
        }
        (failed, unrun, earlier)
    }

    /// The cases a run launched now must record: the undecided ones, or `None` (all) before
    /// the cases are known or while none has decided.
    pub(super) fn ask(&self) -> Option<Vec<String>> {
        let reference = self.reference.as_ref()?;
        if !self.filter || self.decided.is_empty() {
            return None;
        }
        Some(
            reference
                .iter()
                .filter(|id| !self.decided.contains(*id))
                .cloned()
                .collect(),
        )
    }
}

/// Why a resumed suite run cannot go on: it re-ran a run the interrupted session had partly
/// recorded, and a test case's outcome differs from the row kept for it (review 11, a06).
pub(super) fn resumed_conflict(case: &str, trial: u64, kept: Outcome, now: Outcome) -> String {
    format!(
        "test case `{case}` is {now} in this session's suite run #{trial}, which the interrupted \
         session had partly recorded with `{case}` {kept}; the ledger keeps the first row of a \
         trial and cannot hold both, and keeping it would hide this outcome: no verdict (run \
         again with a new ledger)",
        now = outcome_word(now),
        kept = outcome_word(kept),
    )
}

fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Pass => "passing",
        Outcome::Fail => "failing",
        Outcome::Unavailable => "unavailable",
        Outcome::Cancelled => "cancelled",
        Outcome::HarnessError => "a harness error",
    }
}

/// The environment variable that names the file of the test cases a suite run is asked for.
pub const CASES_VAR: &str = "GATE_SUITE_CASES";

impl SuiteLauncher {
    /// The launcher of `suite`'s runs, with `inner`'s settings, sharing `cases`' state.
    pub fn new(inner: ProcessLauncher, suite: &SuiteTask, cases: &SuiteCases) -> Self {
        Self::with_state(inner, suite, Arc::clone(&cases.state))
    }

    /// The launcher of `suite`'s runs with `inner`'s settings, sharing `state` (a
    /// `compare:` suite's two sides share one: [`super::suite_pairs`]).
    pub(super) fn with_state(
        inner: ProcessLauncher,
        suite: &SuiteTask,
        state: Arc<Mutex<SuiteState>>,
    ) -> Self {
        let results = suite.results.as_ref().map(|r| inner.spec.cwd.join(r));
        SuiteLauncher {
            inner,
            results,
            opts: Options {
                format: suite.format,
                assume_retries_off: suite.assume_retries_off,
                ..Options::default()
            },
            own_harness_codes: suite.harness_exit_codes.clone(),
            state,
            asked: Arc::new(Mutex::new(BTreeMap::new())),
            side: None,
            read: Arc::new(Mutex::new(Vec::new())),
        }
    }

    pub(super) fn state(&self) -> std::sync::MutexGuard<'_, SuiteState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Launcher for SuiteLauncher {
    fn launch(&self, ordinal: u64, cancel: Arc<AtomicBool>, tx: mpsc::Sender<TrialMsg>) {
        // What this run is asked for is fixed here, on the scheduler's thread, from the
        // decisions it has consumed: a case decided by then stays decided (its sampler
        // consumes in ordinal order), so only it may be missing from this run.
        let asked = self.state().ask();
        self.asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .insert(ordinal, asked);
        let this = self.clone();
        let tx_back = tx.clone();
        let started = std::thread::Builder::new()
            .name("gate-suite-run".into())
            .spawn(move || {
                // Every row of the run is sent once the run is judged, the suite's own last:
                // the scheduler frees the lane on it.
                let rows = this.run(ordinal, &cancel);
                // Nothing of the run (its box) is held once the scheduler hears it is over.
                drop(this);
                let last = rows.len().saturating_sub(1);
                for (i, row) in rows.into_iter().enumerate() {
                    let _ = tx.send(TrialMsg::Attempt {
                        row: Box::new(row),
                        last: i == last,
                    });
                }
            });
        if let Err(e) = started {
            let why = format!("cannot start a thread for the suite run: {e}");
            let task = &self.inner.spec.task;
            let _ = tx_back.send(TrialMsg::Attempt {
                row: Box::new(super::launcher::harness_error_row(task, ordinal, 1, why)),
                last: true,
            });
        }
    }

    fn kill_all(&self) {
        super::sys::kill_all_groups();
    }

    fn tidy(&self) {
        super::sys::reap_orphans();
    }
}

impl SuiteLauncher {
    /// Run the suite as trial `ordinal`: the test cases' rows, then the suite's own.
    fn run(&self, ordinal: u64, cancel: &AtomicBool) -> Vec<AttemptRow> {
        let asked = self
            .asked
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .remove(&ordinal)
            .flatten();
        self.run_asked(ordinal, cancel, asked)
    }

    /// Run the suite as trial `ordinal`, asked for the cases `asked` (sorted; `None`: all):
    /// the test cases' rows, then the suite's own.
    pub(super) fn run_asked(
        &self,
        ordinal: u64,
        cancel: &AtomicBool,
        asked: Option<Vec<String>>,
    ) -> Vec<AttemptRow> {
        let rows = self.run_judged(ordinal, cancel, asked);
        // The run is judged and its processes are gone.
        let _ = std::fs::remove_dir_all(self.inner.spec.result_dir(ordinal));
        rows
    }

    fn run_judged(
        &self,
        ordinal: u64,
        cancel: &AtomicBool,
        asked: Option<Vec<String>>,
    ) -> Vec<AttemptRow> {
        let base = &self.inner.spec;
        // Beside the attempt's `GATE_RESULT`, in the trial's own folder, which the box
        // lets this run write and no other.
        let trial_dir = base.result_dir(ordinal);
        let fresh = trial_dir.join(format!("{ordinal:04}-1.junit.xml"));
        let path = self.results.clone().unwrap_or_else(|| fresh.clone());
        // A file left by an earlier run must not stand in for this run's.
        let _ = std::fs::remove_file(&path);
        // Nothing is at the path now, so a file there after the run is one this run's command
        // wrote (a link is refused in `judge`): its content is judged as this run's evidence
        // even when it is an earlier run's byte for byte (review 8, a03, a14).
        let cleared = std::fs::symlink_metadata(&path).is_err();
        // The cases asked for, one name a line (as gate names them, without `SUITE/`); empty
        // for every case. Beside the result file, in the trial's own folder.
        let cases_file = trial_dir.join(format!("{ordinal:04}-cases.txt"));
        let mut listed = String::new();
        let mut unlistable = None;
        for id in asked.iter().flatten() {
            let name = &id[base.task.len() + 1..];
            // One name a line: a name with a line break would ask for other cases (review 7,
            // c30), so it cannot be asked for at all.
            if name.contains(['\n', '\r']) {
                unlistable = Some(name);
            }
            listed.push_str(name);
            listed.push('\n');
        }
        let written = match unlistable {
            Some(name) => Err(format!(
                "the test case `{}` cannot be asked for again: its name holds a line break, and \
                 `{CASES_VAR}` names one case a line (rename the test)",
                crate::untrusted::one_line(name)
            )),
            None => std::fs::create_dir_all(&trial_dir)
                .and_then(|()| std::fs::write(&cases_file, listed))
                .map_err(|e| {
                    format!(
                        "cannot write the list of test cases `{}`: {e}",
                        cases_file.display()
                    )
                }),
        };
        if let Err(why) = written {
            return vec![super::launcher::harness_error_row(
                &base.task, ordinal, 1, why,
            )];
        }
        let mut env = base.env.clone();
        env.retain(|(k, _)| k != "GATE_JUNIT" && k != CASES_VAR);
        env.push(("GATE_JUNIT".to_string(), fresh.display().to_string()));
        env.push((CASES_VAR.to_string(), cases_file.display().to_string()));
        let spec = AttemptSpec {
            trial: ordinal,
            attempt: 1,
            env,
            // One suite run per trial, with no check: the result file grades the cases.
            check: None,
            ..base.clone()
        };
        let mut row = attempt_or_internal_error(&spec, &self.inner.redactor, cancel);
        row.graded = false;
        if cancel.load(Ordering::Relaxed) && row.outcome == Outcome::Cancelled {
            return vec![row];
        }
        match self.judge(&row, &path, cleared, asked.as_deref()) {
            Ok((cases, run)) => {
                row.outcome = Outcome::Pass;
                row.fault = None;
                row.detail.reason = None;
                row.suite_run = Some(Box::new(run));
                let mut rows = cases;
                rows.push(row);
                rows
            }
            Err(why) => {
                row.outcome = Outcome::HarnessError;
                row.fault = Some(Fault::Harness);
                row.detail.reason = Some(crate::untrusted::clip(
                    &self.inner.redactor.apply(&format!(
                        "suite run #{ordinal} could not run the suite: {why}; no verdict is published"
                    )),
                    crate::untrusted::MAX_REASON_BYTES,
                ));
                vec![row]
            }
        }
    }

    /// The test cases' rows of a finished run, or why the run is a harness error.
    /// `fresh`: gate cleared `path` before the run, so the run's command wrote the file there.
    /// `asked`: the case ids (sorted) this run was asked for, `None` for all.
    fn judge(
        &self,
        row: &AttemptRow,
        path: &Path,
        fresh: bool,
        asked: Option<&[String]>,
    ) -> Result<(Vec<AttemptRow>, SuiteRun), String> {
        match (row.outcome, row.fault) {
            (Outcome::HarnessError, _) => {
                // The attempt names the policy's codes; a code the task declared is the
                // task's `suite.harness_exit_codes`, which is where the user should look.
                if let Some(code) = row.exit_code
                    && self.own_harness_codes.contains(&code)
                {
                    return Err(format!(
                        "the suite exited {code}, a declared harness exit code (`suite.harness_exit_codes`)"
                    ));
                }
                return Err(row
                    .detail
                    .reason
                    .clone()
                    .unwrap_or_else(|| "harness error".into()));
            }
            (Outcome::Cancelled, _) => return Err("the run was cancelled".into()),
            (_, Some(Fault::Timeout)) => {
                return Err(format!(
                    "the suite ran past its timeout of {:.0} s (`timeout`)",
                    self.inner.spec.timeout.as_secs_f64()
                ));
            }
            (_, Some(Fault::Transport)) => {
                return Err(format!(
                    "the command exited {}, a declared transport exit code (a suite run is not retried)",
                    row.exit_code.unwrap_or_default()
                ));
            }
            _ => {}
        }
        if let Some(sig) = row.signal {
            return Err(format!("the command was killed by signal {sig}"));
        }
        let code = row.exit_code.unwrap_or_default();
        // A shell that survives its runner reports the runner's death as 128 + signal: an
        // abort (134), a kill such as the OOM killer's (137) or a segfault (139) is a crash,
        // and a result file written before it proves nothing about the run.
        if matches!(code, 134 | 137 | 139) {
            return Err(format!(
                "the command exited {code}, a shell's report of a runner killed by signal {}{}",
                code - 128,
                tail_of(row)
            ));
        }
        // A link is never followed to the results (review 5, X2): it could point at a
        // golden file of an earlier, passing run.
        if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
            return Err(format!(
                "the command exited {code} and its result file `{}` is a symbolic link, which \
                 gate does not follow: the run must write its results to a regular file",
                path.display()
            ));
        }
        if !path.is_file() {
            return Err(format!(
                "the command exited {code} and wrote no result file at `{}`{}",
                path.display(),
                tail_of(row)
            ));
        }
        let mut run = ingest::read_run(path, &self.opts).map_err(|e| {
            let mut text = e.to_string();
            let mut source = std::error::Error::source(&e);
            while let Some(s) = source {
                text.push_str(&format!(": {s}"));
                source = s.source();
            }
            // The flag of `gate ingest` is a key of the suite task here.
            let text = text.replace(
                "pass `--assume-retries-off`",
                "set `assume_retries_off: true` in the task's `suite:`",
            );
            // A reader's refusal may quote a test id: redacted like the ids themselves.
            self.inner
                .redactor
                .apply(&format!("the command exited {code}: {text}"))
        })?;
        self.check_new_evidence(row.trial, &run, fresh)?;
        // The test ids come from the task: redacted before anything reads them.
        run.redact(|s| self.inner.redactor.apply(s));
        if run.trials.is_empty() {
            return Err(format!(
                "the command exited {code} and its result file records no test case that ran ({} skipped){}",
                run.skipped,
                tail_of(row)
            ));
        }
        let mut ids: Vec<String> = run
            .trials
            .iter()
            .map(|t| suite_case_id(&row.task, &t.test))
            .collect();
        if let Some(blank) = run
            .trials
            .iter()
            .find(|t| crate::untrusted::is_blank_id(&t.test))
        {
            return Err(format!(
                "a test case has no visible name (`{}`)",
                crate::untrusted::one_line(&blank.test)
            ));
        }
        ids.sort_unstable();
        // The cases this run skipped: a case the earlier runs ran and this one skipped is
        // missing evidence, not a case that did not count (review 7, c35).
        let mut skipped: Vec<String> = run
            .skipped_tests
            .iter()
            .map(|t| suite_case_id(&row.task, t))
            .filter(|id| ids.binary_search(id).is_err())
            .collect();
        skipped.sort_unstable();
        skipped.dedup();
        if let Some(twice) = ids.windows(2).find(|w| w[0] == w[1]) {
            return Err(format!(
                "test case `{}` is recorded more than once in one run; a suite task needs one record per test case per run (repeats are trials: turn pytest-repeat and the like off)",
                twice[0]
            ));
        }
        // Every case the run recorded: those it ran and those it skipped. A skipped case was
        // collected, so it is a case of the suite, never a case the run lacks (review 10,
        // a10, a15, a17).
        let mut recorded: Vec<String> = ids.iter().chain(&skipped).cloned().collect();
        recorded.sort_unstable();
        let (family, skipped_asked, never_ran, earlier) = {
            let mut state = self.state();
            let mut family = None;
            match state.reference.as_ref() {
                None => {
                    // The first run read fixes the cases, and with their number the family
                    // design, before any of its rows reaches a case's sampler. A case it
                    // skipped is one of them: a later run may run it.
                    let (rule, rates) = &state.plan_rule;
                    // On a resume whose ledger lost the design, the cases its rows name
                    // must all be here: they are the same suite's first run's.
                    if let Some(earlier) = &state.resumed {
                        let missing: Vec<&String> = earlier
                            .iter()
                            .filter(|t| recorded.binary_search(t).is_err())
                            .take(NAMED)
                            .collect();
                        if !missing.is_empty() {
                            return Err(format!(
                                "this run recorded other test cases than the interrupted session's rows of the suite (missing: {missing:?}); every trial must run the same suite"
                            ));
                        }
                    }
                    family = match &state.compare {
                        Some(c) => {
                            crate::plan::family::design_compare(c, rule, recorded.len() as u64)
                                .map(Some)
                        }
                        None => {
                            crate::plan::family::design(rule, rates.as_ref(), recorded.len() as u64)
                        }
                    }
                    .map_err(|e| format!("task `{}`: {e}", row.task))?;
                    state.family.clone_from(&family);
                    state.reference = Some(recorded.clone());
                    state.reference_by = self.side.map(|side| (side, row.trial));
                }
                Some(first) => {
                    // Every case asked for must be recorded (run or skipped), and no case the
                    // first run did not record may run; a case not asked for (a runner that
                    // ignores the filter) is recorded, and its decided sampler does not count
                    // it.
                    let wanted = asked.unwrap_or(first);
                    let missing: Vec<&String> = wanted
                        .iter()
                        .filter(|t| recorded.binary_search(t).is_err())
                        .take(NAMED)
                        .collect();
                    let added: Vec<&String> = ids
                        .iter()
                        .filter(|t| first.binary_search(t).is_err())
                        .take(NAMED)
                        .collect();
                    // The other side's record of this same run fixed the cases: the
                    // mismatch is between the two sides, and names the side that lacks
                    // each case, not the side read second (review 6, a13).
                    if let (Some(me), Some((by, trial))) = (self.side, state.reference_by)
                        && by != me
                        && trial == row.trial
                        && (!missing.is_empty() || !added.is_empty())
                    {
                        return Err(format!(
                            "this run recorded other test cases than {by}'s record of the same suite run #{trial}, read first ({by} lacks: {added:?}; {me} lacks: {missing:?}); every trial must run the same suite",
                            by = by.as_str(),
                            me = me.as_str()
                        ));
                    }
                    if !missing.is_empty() || !added.is_empty() {
                        return Err(format!(
                            "this run recorded other test cases than {} (missing: {missing:?}; new: {added:?}); every trial must run the same suite",
                            if asked.is_some() {
                                format!(
                                    "the {} undecided ones it was asked for (`{CASES_VAR}`) and the runs before it",
                                    wanted.len()
                                )
                            } else {
                                "the runs before it".to_string()
                            }
                        ));
                    }
                }
            }
            // The skips of cases asked for: a case this side ran in an earlier run read and
            // skipped here is a failed trial of this run (code under test that raises
            // `unittest.SkipTest` or calls `pytest.skip` only when it fails would otherwise
            // vanish from the runs it fails in: review 7, c35); a case it never ran so far
            // has no trial yet. A case run here that earlier runs skipped turns those skips
            // into failed trials now (review 10, a10).
            let wanted = asked.or(state.reference.as_deref()).unwrap_or_default();
            let skipped_wanted: Vec<String> = skipped
                .iter()
                .filter(|t| wanted.binary_search(t).is_ok())
                .cloned()
                .collect();
            let (skipped_asked, never_ran, earlier) =
                state.unrun_skips_ran(self.side, row.trial, &skipped_wanted, &ids);
            (family, skipped_asked, never_ran, earlier)
        };
        if self.side == Some(crate::pair_sampler::Side::Base) && !skipped_asked.is_empty() {
            // On base a skip cannot be the failed trial it is on head (c35): a base failure
            // in that pair would cancel head's failure there, and head failing half its runs
            // PASSed (review 9, a08). Nor can the pair be voided, which would drop head's
            // failure. Base's record of the pair is missing, as for a case base's run lacks.
            return Err(format!(
                "base skipped {} that the runs before it ran; a skip is no observation, and on base it can be \
                 read neither as a failure (which would cancel head's failure in the pair) nor as nothing \
                 (which would drop head's trial): every pair needs both sides. Make the case's skip the same \
                 in every base run, or leave it out of the suite",
                named_cases(&skipped_asked)
            ));
        }
        let failed = run
            .trials
            .iter()
            .filter(|t| t.attempts[0].outcome() != Outcome::Pass)
            .count() as u64
            + skipped_asked.len() as u64;
        let mut rows = Vec::with_capacity(run.trials.len() + skipped_asked.len() + earlier.len());
        // The earlier runs' skips of a case this run ran first (review 10, a10), in their
        // runs' order, before this run's own rows: the case's sampler takes them in order.
        // A case skipped in a run where it had to run: a failed trial of that run (`why` says
        // which runs ran it).
        let skip_failure = |id: &str, trial: u64, why: String| {
            ingest::Attempt {
                passed: false,
                unavailable: false,
                duration_s: 0.0,
                message: format!(
                    "skipped in suite run #{trial}, though {why}: a test that skips in some runs only \
                     (code under test raising `unittest.SkipTest`, `pytest.skip`) has no result in them, \
                     and counts as a failed trial there"
                ),
                detail: String::new(),
            }
            .row(id, trial, 1, &row.started_at, None)
        };
        for (id, trial) in &earlier {
            rows.push(skip_failure(
                id,
                *trial,
                format!("a later run (#{}) ran it", row.trial),
            ));
        }
        for id in &skipped_asked {
            rows.push(skip_failure(
                id,
                row.trial,
                "the runs before it ran it".into(),
            ));
        }
        for t in &run.trials {
            let id = suite_case_id(&row.task, &t.test);
            for (j, a) in t.attempts.iter().enumerate() {
                let mut r = a.row(&id, row.trial, j as u32 + 1, &row.started_at, None);
                // Only a case with something to redact gets a detail of its own (a passing
                // case's row holds none: issue 30).
                if r.detail.reason.is_some() || !r.detail.stderr_tail.is_empty() {
                    let d = &mut *r.detail;
                    d.reason = d.reason.take().map(|x| self.inner.redactor.apply(&x));
                    d.stderr_tail = self.inner.redactor.apply(&d.stderr_tail);
                }
                rows.push(r);
            }
        }
        Ok((
            rows,
            SuiteRun {
                results_sha256: run.sha256,
                writer: run.writer.as_str().to_string(),
                cases: run.trials.len() as u64 + skipped_asked.len() as u64,
                failed,
                asked: asked.map(|a| a.len() as u64),
                family,
                never_ran,
            },
        ))
    }
}

impl SuiteLauncher {
    /// Refuse a run whose result file is the evidence of an earlier run of this suite (this
    /// side) again: the same bytes, the same run id, the same timestamped records, or one of
    /// its `<testsuite>`s (go test runs) with the same records and timestamps. A build or test
    /// cache that serves run 1's results to every later run (Bazel, Nx, Turborepo, Go's test
    /// cache, Gradle) turns one execution into n trials (review 7, c19, c44).
    ///
    /// `fresh`: the run's command wrote the file after gate cleared its path. Then the same
    /// bytes are a replay only when the file says which run it is (a timestamp or a run id):
    /// an honest deterministic suite whose writer records neither writes the same bytes every
    /// run, and refusing those refused every such suite (review 8, a03 `det`, a14). A command
    /// that copies a stored file without a timestamp is not seen (docs/trust.md says so).
    fn check_new_evidence(
        &self,
        trial: u64,
        run: &ingest::RunFile,
        fresh: bool,
    ) -> Result<(), String> {
        let fp = ingest::identity::Fingerprint::of(run);
        let mut read = self
            .read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((earlier, how)) = read
            .iter()
            .find_map(|(k, e)| fp.replays(e, fresh).map(|how| (*k, how)))
        {
            return Err(format!(
                "its result file is suite run #{earlier}'s evidence again ({how}): one execution \
                 cannot count as two trials. A build or test cache most likely served run #{earlier}'s \
                 results again: turn it off for the suite's command (Bazel `--nocache_test_results`, \
                 Nx `--skip-nx-cache`, Turborepo `--force`, `go test -count=1`, Gradle `--rerun-tasks`) \
                 (docs/trust.md, \"Evidence has an identity\")"
            ));
        }
        read.push((trial, fp));
        Ok(())
    }
}

/// The last lines the run printed, to quote in a harness error.
fn tail_of(row: &AttemptRow) -> String {
    let text = if row.detail.stderr_tail.trim().is_empty() {
        &row.detail.stdout_tail
    } else {
        &row.detail.stderr_tail
    };
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    if lines.is_empty() {
        return String::new();
    }
    let last = &lines[lines.len().saturating_sub(4)..];
    format!("; it printed: {}", last.join(" | "))
}

/// A suite task's test cases, each with its own ordered sampler.
#[derive(Debug)]
pub struct SuiteCases {
    max_unavailable: u64,
    shard: Option<Shard>,
    /// In order of first appearance.
    cases: Vec<(String, OrderedSampler)>,
    index: BTreeMap<String, usize>,
    /// (task, trial) of every test-case row an earlier session of the ledger holds.
    prior: HashMap<(String, u64), Outcome>,
    /// Test cases whose decision row an earlier session wrote.
    decided: HashSet<String>,
    /// A resumed ledger's test-case rows held back until this session's first run fixes the
    /// cases and their family design ([`SuiteState::resumed`]), then consumed first.
    held: Vec<AttemptRow>,
    /// Shared with the suite's runs ([`SuiteLauncher`]).
    state: Arc<Mutex<SuiteState>>,
}

impl SuiteCases {
    /// The test cases of suite task `suite`, judged by `sampling` (designed for `rates`) or,
    /// once the cases are known, by their family design; `prior` is the ledger of an
    /// interrupted session (resumed), whose family design is reused, whose test-case rows
    /// are consumed at once and whose decision rows are not written again.
    pub fn new(
        suite: &str,
        sampling: Sampling,
        rates: Option<crate::model::Rates>,
        max_unavailable: u64,
        shard: Option<Shard>,
        prior: Option<&crate::ledger::Ledger>,
    ) -> Result<Self, crate::error::Error> {
        // Checked once here, so that adding a case later cannot fail.
        OrderedSampler::new(sampling.clone(), max_unavailable, shard)
            .map_err(|e| crate::error::Error::Harness(format!("task `{suite}`: {e}")))?;
        let mut cases = SuiteCases {
            max_unavailable,
            shard,
            cases: Vec::new(),
            index: BTreeMap::new(),
            prior: HashMap::new(),
            decided: HashSet::new(),
            held: Vec::new(),
            state: Arc::new(Mutex::new(SuiteState {
                plan_rule: (sampling, rates),
                compare: None,
                reference: None,
                reference_by: None,
                family: None,
                decided: HashSet::new(),
                filter: shard.is_none(),
                resumed: None,
                ran: BTreeMap::new(),
                unrun_skips: BTreeMap::new(),
                base_gaps: HashSet::new(),
            })),
        };
        let Some(ledger) = prior else {
            return Ok(cases);
        };
        // The design the earlier session recorded is the one its cases were judged by; a
        // ledger whose cases were judged without one (an earlier gate) goes on without.
        let family = ledger
            .attempts()
            .filter(|r| r.task == suite)
            .find_map(|r| r.suite_run.as_ref().and_then(|s| s.family.clone()));
        if let Some(f) = &family {
            OrderedSampler::new(f.sampling.clone(), max_unavailable, shard).map_err(|e| {
                crate::error::Error::Harness(format!(
                    "task `{suite}`: the ledger's family design: {e}"
                ))
            })?;
        }
        cases.state_mut().family = family;
        let unrun = resumed_unrun(&mut cases.state_mut(), ledger, suite);
        let rows: Vec<&AttemptRow> = ledger
            .attempts()
            .filter(|r| suite_of(&r.task) == Some(suite))
            .collect();
        let mut known: Vec<String> = rows.iter().map(|r| r.task.clone()).collect();
        known.sort_unstable();
        known.dedup();
        // A design lost with the run row that carried it is designed again by this session's
        // first run (the one that fixed the cases is run again: its row is missing), never
        // replaced by the plan's rule at the full alpha (review 9, a06).
        let first_run_recorded = ledger
            .attempts()
            .any(|r| r.task == suite && r.suite_run.is_some());
        let defer = cases.state_mut().defer_resumed(&known, first_run_recorded);
        for row in rows {
            if defer {
                cases.held.push(row.clone());
            } else {
                cases.consume(row);
            }
            if row.attempt == 1 {
                cases
                    .prior
                    .insert((row.task.clone(), row.trial), row.outcome);
            } else {
                cases
                    .prior
                    .entry((row.task.clone(), row.trial))
                    .or_insert(row.outcome);
            }
        }
        let known = if defer {
            Vec::new()
        } else {
            let mut known = cases.ids();
            known.extend(unrun.into_iter().filter(|id| !cases.index.contains_key(id)));
            known
        };
        cases.decided = resumed_cases(&cases.state, known, ledger, suite);
        Ok(cases)
    }

    /// Consume the resumed rows held back ([`Self::held`]) once this session's first run
    /// has fixed the cases (or, `now`, at the end whatever happened).
    fn release_held(&mut self, now: bool) {
        if self.held.is_empty() || !(now || self.state_mut().reference.is_some()) {
            return;
        }
        for row in std::mem::take(&mut self.held) {
            self.consume(&row);
        }
    }

    fn state_mut(&self) -> std::sync::MutexGuard<'_, SuiteState> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The test-case task ids recorded so far.
    pub fn ids(&self) -> Vec<String> {
        self.cases.iter().map(|(id, _)| id.clone()).collect()
    }

    /// The family design in force, once the cases are known.
    pub fn family(&self) -> Option<Family> {
        self.state_mut().family.clone()
    }

    fn consume(&mut self, row: &AttemptRow) {
        let i = match self.index.get(&row.task) {
            Some(&i) => i,
            None => {
                let rule = self.state_mut().case_rule().clone();
                let Ok(sampler) = OrderedSampler::new(rule, self.max_unavailable, self.shard)
                else {
                    return;
                };
                self.cases.push((row.task.clone(), sampler));
                self.index.insert(row.task.clone(), self.cases.len() - 1);
                self.cases.len() - 1
            }
        };
        if row.attempt == 1 {
            let sampler = &mut self.cases[i].1;
            let was = sampler.decision().is_some();
            sampler.offer(row.trial, row.outcome);
            if !was && sampler.decision().is_some() {
                self.state_mut().decided.insert(row.task.clone());
            }
        }
    }
}

impl Cases for SuiteCases {
    fn admit(&mut self, row: &AttemptRow) -> Result<bool, String> {
        // The run that sends a case row was judged, so the cases are fixed by now.
        self.release_held(false);
        if let Some(&kept) = self.prior.get(&(row.task.clone(), row.trial)) {
            // Only a trial the case's rule counts: one after the case's decision is excluded
            // whatever its outcome (review 12, a18).
            let counted = self
                .index
                .get(&row.task)
                .and_then(|&i| self.cases[i].1.decided_at())
                .is_none_or(|at| row.trial <= at);
            if row.attempt == 1 && row.outcome == Outcome::Fail && kept != Outcome::Fail && counted
            {
                return Err(resumed_conflict(&row.task, row.trial, kept, row.outcome));
            }
            return Ok(false);
        }
        self.consume(row);
        Ok(true)
    }

    fn all_decided(&self) -> bool {
        !self.cases.is_empty() && self.cases.iter().all(|(_, s)| s.decision().is_some())
    }

    fn runs_rule(&self) -> Option<Sampling> {
        self.state_mut()
            .family
            .as_ref()
            .map(|f| crate::ledger::suite_runs_rule(&f.sampling))
    }

    fn decisions(&mut self, undecided: &Decision) -> Vec<DecisionRow> {
        self.release_held(true);
        let never_ran = self.state_mut().never_ran(None);
        let mut rows: Vec<DecisionRow> = self
            .cases
            .iter()
            .filter(|(id, _)| !self.decided.contains(id))
            .map(|(id, s)| {
                let d = s.decision().unwrap_or(undecided);
                DecisionRow {
                    task: id.clone(),
                    verdict: d.verdict.into(),
                    reason: d.reason.clone(),
                    counts: s.counts(),
                    llr: s.rule().llr(),
                }
            })
            .collect();
        // A case skipped in every run has no sampler: it is INCONCLUSIVE, as its replay is.
        rows.extend(
            never_ran
                .into_iter()
                .filter(|id| !self.decided.contains(id) && !self.index.contains_key(id))
                .map(|id| DecisionRow {
                    task: id,
                    verdict: crate::model::Verdict::Inconclusive.into(),
                    reason: crate::ledger::SKIPPED_IN_EVERY_RUN.to_string(),
                    counts: Default::default(),
                    llr: None,
                }),
        );
        rows
    }
}

/// Refuse a suite task whose runs all write one fixed `results` path with `jobs` > 1: two
/// runs at once would write the one file. Called before the ledger is touched.
pub fn check_jobs(task: &crate::plan::Task, jobs: usize) -> Result<(), crate::error::Error> {
    match task.suite().and_then(|s| s.results.as_ref()) {
        Some(path) if jobs > 1 => Err(crate::error::Error::Usage(format!(
            "task `{}`: `suite.results: {path}` is one file for every run, so its runs cannot run {jobs} at a time; write to `$GATE_JUNIT` (a fresh path per run) or run with `--jobs 1`",
            task.id
        ))),
        _ => Ok(()),
    }
}

/// The scheduling of suite task `task` (its runs, on [`crate::ledger::suite_runs_rule`], with
/// `jobs` lanes, as shard `shard` if any) and its test cases, with what the resumed ledger
/// `prior` already holds.
pub fn plan(
    task: &crate::plan::Task,
    jobs: usize,
    shard: Option<Shard>,
    prior: Option<&crate::ledger::Ledger>,
) -> Result<(super::scheduler::TaskConfig, SuiteCases), crate::error::Error> {
    check_jobs(task, jobs)?;
    let mut config = super::scheduler::TaskConfig::new(task, jobs, shard);
    config.sampling = crate::ledger::suite_runs_rule(&task.sampling);
    // A suite run that is not a run of the suite is a harness error, never unavailable.
    config.max_unavailable = 0;
    let cases = SuiteCases::new(
        &task.id,
        task.sampling.clone(),
        task.rates,
        task.max_unavailable,
        shard,
        prior,
    )?;
    Ok((config, cases))
}

/// The first test cases of `ids` in backticks (at most `NAMED`), then how many more.
fn named_cases(ids: &[String]) -> String {
    let mut text = ids
        .iter()
        .take(NAMED)
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > NAMED {
        text.push_str(&format!(", and {} more", ids.len() - NAMED));
    }
    format!("test case{} {text}", if ids.len() == 1 { "" } else { "s" })
}

#[cfg(test)]
mod tests {
    //! The test cases' bookkeeping, without processes.

    use super::*;

    fn row(task: &str, trial: u64, outcome: Outcome) -> AttemptRow {
        crate::ingest::Attempt {
            passed: outcome == Outcome::Pass,
            unavailable: false,
            duration_s: 0.0,
            message: String::new(),
            detail: String::new(),
        }
        .row(task, trial, 1, "2026-01-01T00:00:00Z", None)
    }

    #[test]
    fn each_test_case_decides_on_its_own_and_the_suite_waits_for_the_last() {
        let mut cases =
            SuiteCases::new("s", Sampling::Single { n: 3, c: 0 }, None, 0, None, None).unwrap();
        assert!(!cases.all_decided(), "nothing seen yet is not all decided");
        for k in 1..=2 {
            assert!(cases.admit(&row("s/a", k, Outcome::Pass)).unwrap());
            assert!(
                cases
                    .admit(&row(
                        "s/b",
                        k,
                        if k == 1 { Outcome::Fail } else { Outcome::Pass }
                    ))
                    .unwrap()
            );
        }
        // `b` failed at once (FAIL), `a` needs a third pass.
        assert!(!cases.all_decided());
        assert!(cases.admit(&row("s/a", 3, Outcome::Pass)).unwrap());
        assert!(cases.admit(&row("s/b", 3, Outcome::Pass)).unwrap());
        assert!(cases.all_decided());
        let undecided = Decision {
            verdict: crate::model::Verdict::Inconclusive,
            reason: String::new(),
        };
        let d = cases.decisions(&undecided);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].verdict.verdict(), Some(crate::model::Verdict::Pass));
        assert_eq!(d[1].verdict.verdict(), Some(crate::model::Verdict::Fail));
        // `b`'s later runs are recorded, not counted.
        assert_eq!((d[1].counts.failed, d[1].counts.excluded), (1, 2));
    }
}
