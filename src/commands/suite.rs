//! `gate suite COMMAND`: run a whole test suite once per trial and judge every test case in
//! the JUnit file each run writes, with the same rules, ledger and reports as `gate ingest`.
//!
//! A team with an existing suite should not have to write one task per test, nor a shell loop
//! around `gate ingest`. Here trial k runs COMMAND (`sh -c`, `GATE_TRIAL=k`,
//! `GATE_JUNIT=<ledger dir>/suite-runs/run-k.xml`), and the file is read at once, bounded, by
//! the same JUnit readers as `gate ingest` (first attempts only). Each test case is a task
//! whose ordinal-k trial is its record in run k. After each run every test case's rule is fed
//! its outcomes in ordinal order through the ordered sampler; the suite runs again while any
//! test case is undecided, and a decided test case's later outcomes are recorded as excluded
//! (the ledger is written by the same code as `gate ingest`'s, so `gate verify` and `gate
//! report` recompute every verdict).
//!
//! The suite's own failure is not a test's: a run that writes no JUnit file gate can read,
//! records no test case that ran, records a different set of test cases than run 1 (their
//! ordinals would no longer line up), is killed by a signal, or exits with one of
//! `--harness-exit-codes` stops with a harness error (exit 4) and publishes no verdict.

use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::cli::{IngestArgs, OutputArgs, SuiteArgs};
use crate::error::Error;
use crate::ingest::{self, Options, RunFile};
use crate::ledger::Outcome;
use crate::sampler::OrderedSampler;

use super::ingest::{Rules, assign, judge_runs, options, preflight, rules};

/// Lines of a failed suite run's output quoted in the harness error.
const TAIL_LINES: usize = 8;

/// Execute `gate suite`; returns the exit code.
pub fn execute(args: &SuiteArgs, output: &OutputArgs) -> Result<u8, Error> {
    let ingest_args = as_ingest(args);
    let rules = rules(&ingest_args)?;
    let outputs = preflight(&ingest_args)?;
    let most = most_trials(&rules);
    let dir = args
        .ledger
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .join("suite-runs");
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::output(format!("cannot create `{}`", dir.display()), e))?;
    let opts = options(&ingest_args)?;
    let mut runs: Vec<RunFile> = Vec::new();
    for k in 1..=most {
        let run = run_once(args, &dir, k, &opts)?;
        if let Some(first) = runs.first() {
            same_cases(first, &run, k)?;
        }
        runs.push(run);
        let undecided = undecided(&rules, &runs)?;
        if !output.quiet {
            let run = &runs[runs.len() - 1];
            let failed = run.trials.iter().filter(|t| !t.attempts[0].passed).count();
            eprintln!(
                "suite run #{k:03}: {} test case{} ran, {failed} failed; {undecided} undecided",
                run.trials.len(),
                if run.trials.len() == 1 { "" } else { "s" },
            );
        }
        if undecided == 0 {
            break;
        }
    }
    judge_runs(&ingest_args, output, &outputs, &rules, Vec::new(), runs)
}

/// The `gate suite` command line `gate init` offers for a kind of project: the whole suite as
/// each trial, every test case judged by the same design as the plan it writes, the runner's
/// retries off, and its "could not run" exit codes declared. `None` where no command has been
/// checked end to end (tests/cli/suite.rs runs the pytest one).
pub fn offer(kind: crate::cli::ProjectKind) -> Option<String> {
    match kind {
        crate::cli::ProjectKind::Pytest => Some(
            "gate suite --healthy 90% --regressed 70% --harness-exit-codes 2,3,4,5 -- \\\n      \
             'python3 -m pytest -q -p no:cacheprovider -p no:randomly -p no:rerunfailures --junitxml=\"$GATE_JUNIT\"'"
                .to_string(),
        ),
        // The command of docs/runners.md that tests/cli/suite.rs runs end to end; nextest
        // writes JUnit only where a profile says, hence the note.
        crate::cli::ProjectKind::Cargo => Some(
            "gate suite --healthy 90% --regressed 70% --harness-exit-codes 4,96,101 -- \\\n      \
             'rm -f target/nextest/ci/junit.xml; cargo nextest run --profile ci --retries 0 --no-fail-fast; \
             s=$?; cp target/nextest/ci/junit.xml \"$GATE_JUNIT\" 2>/dev/null; exit $s'\n  \
             (with cargo-nextest, and `[profile.ci.junit] path = \"junit.xml\"` in .config/nextest.toml)"
                .to_string(),
        ),
        _ => None,
    }
}

/// The flags as `gate ingest` takes them (the suite runs take the place of the files).
fn as_ingest(a: &SuiteArgs) -> IngestArgs {
    IngestArgs {
        results: Vec::new(),
        base: Vec::new(),
        odds_ratio: None,
        plan: a.plan.clone(),
        single: a.single.clone(),
        healthy: a.healthy,
        regressed: a.regressed,
        alpha: a.alpha,
        beta: a.beta,
        sampling: a.sampling,
        rule: None,
        max_trials: a.max_trials,
        ledger: a.ledger.clone(),
        on_inconclusive: a.on_inconclusive,
        assume_retries_off: a.assume_retries_off,
        // The suite is told to write JUnit to $GATE_JUNIT: read it as JUnit, not by guessing.
        format: Some(crate::cli::IngestFormat::Junit),
        scorer: None,
        pass_threshold: 1.0,
        errors: crate::cli::ErrorPolicy::Fail,
        allow_incomplete: false,
        reports: a.reports.clone(),
    }
}

/// The most graded trials any rule can consume: the suite never runs more often.
fn most_trials(rules: &Rules) -> u64 {
    match rules {
        Rules::Flags { rule, .. } => rule.sampling.max_graded(),
        Rules::Plan(plan) => plan
            .selections
            .iter()
            .map(|s| &s.rule)
            .chain(plan.default_rule.as_ref())
            .map(|r| r.sampling.max_graded())
            .max()
            .unwrap_or(0),
    }
}

/// Run the suite once as trial `k` and read the JUnit file it wrote.
fn run_once(args: &SuiteArgs, dir: &Path, k: u64, opts: &Options) -> Result<RunFile, Error> {
    let junit = dir.join(format!("run-{k:03}.xml"));
    let log = dir.join(format!("run-{k:03}.log"));
    // A file left by an earlier session must not stand in for this run's.
    for stale in [&junit, &log] {
        match std::fs::remove_file(stale) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(Error::output(
                    format!("cannot remove `{}`", stale.display()),
                    e,
                ));
            }
            _ => {}
        }
    }
    let log_file = std::fs::File::create(&log)
        .map_err(|e| Error::output(format!("cannot create `{}`", log.display()), e))?;
    let err_file = log_file
        .try_clone()
        .map_err(|e| Error::output(format!("cannot open `{}`", log.display()), e))?;
    let status = std::process::Command::new("sh")
        .arg("-c")
        .arg(&args.command)
        .env("GATE_TRIAL", k.to_string())
        .env("GATE_JUNIT", absolute(&junit))
        .stdin(Stdio::null())
        .stdout(log_file)
        .stderr(err_file)
        .status()
        .map_err(|e| Error::Harness(format!("suite run #{k:03}: cannot start `sh -c`: {e}")))?;
    let harness = |why: String| {
        Error::Harness(format!(
            "suite run #{k:03} could not run the suite: {why}; no verdict is published (output: {}){}",
            log.display(),
            tail(&log)
        ))
    };
    let code = match status.code() {
        Some(c) => c,
        None => return Err(harness(format!("the command was killed ({status})"))),
    };
    if args.harness_exit_codes.contains(&code) {
        return Err(harness(format!(
            "the command exited {code}, a declared harness exit code"
        )));
    }
    if !junit.is_file() {
        return Err(harness(format!(
            "the command exited {code} and wrote no JUnit file at $GATE_JUNIT ({})",
            junit.display()
        )));
    }
    let run = ingest::read_run(&junit, opts).map_err(|e| harness(e.to_string()))?;
    if run.trials.is_empty() {
        return Err(harness(format!(
            "its JUnit file records no test case that ran ({} skipped)",
            run.skipped
        )));
    }
    Ok(run)
}

/// `path` made absolute against the current directory, so the suite may change directory.
fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir().map_or_else(|_| path.to_path_buf(), |cwd| cwd.join(path))
}

/// The last lines of a run's output, indented, to quote in an error.
fn tail(log: &Path) -> String {
    let mut text = String::new();
    // Bounded: the suite controls this file.
    let _ = std::fs::File::open(log).and_then(|f| f.take(64 << 10).read_to_string(&mut text));
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| format!("\n  | {}", crate::report::model::printable(l)))
        .collect()
}

/// Every run must record the same test cases as the first (as many times each): a test
/// case that is missing from run k would take run k+1's outcome as its ordinal k.
fn same_cases(first: &RunFile, run: &RunFile, k: u64) -> Result<(), Error> {
    fn ids(r: &RunFile) -> Vec<&str> {
        let mut v: Vec<&str> = r.trials.iter().map(|t| t.test.as_str()).collect();
        v.sort_unstable();
        v
    }
    let (a, b) = (ids(first), ids(run));
    if a == b {
        return Ok(());
    }
    let missing: Vec<&&str> = a.iter().filter(|t| !b.contains(t)).take(5).collect();
    let added: Vec<&&str> = b.iter().filter(|t| !a.contains(t)).take(5).collect();
    Err(Error::Harness(format!(
        "suite run #{k:03} recorded other test cases than run #001 (missing: {missing:?}; new: \
         {added:?}; or a different number of repeats): every trial must run the same suite; no \
         verdict is published"
    )))
}

/// How many test cases' rules have not decided on the runs so far.
fn undecided(rules: &Rules, runs: &[RunFile]) -> Result<usize, Error> {
    let histories = ingest::histories(runs.to_vec());
    let (tasks, _) = assign(rules, &histories)?;
    let mut open = 0;
    for (spec, history) in &tasks {
        let mut sampler = OrderedSampler::new(spec.sampling.clone(), spec.max_unavailable, None)
            .map_err(|e| Error::Usage(format!("task `{}`: {e}", spec.id)))?;
        for (i, attempts) in history.trials.iter().enumerate() {
            let first = if attempts[0].passed {
                Outcome::Pass
            } else {
                Outcome::Fail
            };
            sampler.offer(i as u64 + 1, first);
        }
        if sampler.decision().is_none() {
            open += 1;
        }
    }
    Ok(open)
}
