//! `gate suite [RULE FLAGS] -- COMMAND`: the `suite:` task of a plan file, from the command
//! line.
//!
//! There is one implementation of a suite run: the plan file's `suite:` task kind, which
//! `gate run` schedules ([`crate::runner::suite`]). This command writes that plan — one suite
//! task running COMMAND in the current directory, judged by the rule the flags give — beside
//! the ledger (`suite-plan.yaml`, so `gate report` and `gate verify` find what was run), and
//! runs it with `gate run`: the same box, timeout, ledger, resume-free reports and exit
//! codes. For a plan's own rules, `--jobs`, shards or `--resume`, put the task in a plan file.

use std::fmt::Write as _;
use std::path::Path;

use crate::cli::{DesignRule, OutputArgs, RunArgs, SuiteArgs};
use crate::error::Error;

/// Execute `gate suite`; returns the exit code.
pub fn execute(args: &SuiteArgs, output: &OutputArgs) -> Result<u8, Error> {
    if let Some(plan) = &args.plan {
        return Err(Error::Usage(format!(
            "`gate suite --plan {}`: a plan file runs a suite as a task of its own — add `suite: {{run: COMMAND}}` to a task of it and `gate run` it (docs/plan-file.md, \"Suite tasks\")",
            plan.display()
        )));
    }
    // `--healthy 0.9%` is 0.009: legal, and almost surely meant as 90%. Say what was read,
    // as `gate plan` does.
    for w in crate::units::flag_rate_warnings(args.design.healthy, args.design.regressed) {
        eprintln!("{w}");
    }
    let dir = args
        .ledger
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir)
        .map_err(|e| Error::output(format!("cannot create `{}`", dir.display()), e))?;
    let cwd = std::env::current_dir()
        .map_err(|e| Error::input("cannot read the current directory", e))?;
    let plan = plan_text(args, &cwd)?;
    let path = dir.join("suite-plan.yaml");
    std::fs::write(&path, plan)
        .map_err(|e| Error::output(format!("cannot write `{}`", path.display()), e))?;
    let run = RunArgs {
        plan: Some(path),
        ledger: args.ledger.clone(),
        jobs: None,
        shard: None,
        stage: None,
        after: Vec::new(),
        resume: false,
        on_inconclusive: args.on_inconclusive,
        tasks: Vec::new(),
        reports: args.reports.clone(),
    };
    super::run::execute(&run, output)
}

/// The plan `gate suite` runs: its rule from the flags, one suite task (`suite`) in `cwd`.
/// Strings are written as JSON strings, which YAML reads as they are.
fn plan_text(args: &SuiteArgs, cwd: &Path) -> Result<String, Error> {
    let q = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let sampling = if let Some(single) = &args.design.single {
        let (n, c) = super::parse_single(single)?;
        format!("{{single: {{n: {n}, c: {c}}}}}")
    } else {
        let (Some(h), Some(r)) = (args.design.healthy, args.design.regressed) else {
            return Err(Error::Usage(
                "give `--single N,C`, or `--healthy P0 --regressed P1`".into(),
            ));
        };
        let mut d = format!("healthy: {h}, regressed: {r}");
        if let Some(a) = args.design.alpha {
            let _ = write!(d, ", alpha: {a}");
        }
        if let Some(b) = args.design.beta {
            let _ = write!(d, ", beta: {b}");
        }
        let rule = match args.design.sampling {
            DesignRule::Single => "single",
            DesignRule::Sequential => "sequential",
        };
        let _ = write!(d, ", rule: {rule}");
        if let Some(m) = args.design.max_trials {
            let _ = write!(d, ", max_trials: {m}");
        }
        format!("{{design: {{{d}}}}}")
    };
    let codes: Vec<String> = args.harness_exit_codes.iter().map(i32::to_string).collect();
    Ok(format!(
        "# Written by `gate suite`: the suite task it ran (docs/plan-file.md, \"Suite tasks\").\n\
         version: 1\n\
         sampling: {sampling}\n\
         tasks:\n\
         \x20 - id: suite\n\
         \x20   cwd: {cwd}\n\
         \x20   timeout: 6h\n\
         \x20   suite:\n\
         \x20     run: {run}\n\
         \x20     format: junit\n\
         \x20     harness_exit_codes: [{codes}]\n\
         \x20     assume_retries_off: {retries_off}\n",
        cwd = q(&cwd.display().to_string()),
        run = q(&args.command),
        codes = codes.join(", "),
        retries_off = args.assume_retries_off,
    ))
}

/// The `gate suite` command line `gate init` offers for a kind of project: the whole suite as
/// each trial, every test case judged by the same design as the plan it writes, the runner's
/// retries off, and its "could not run" exit codes declared. `None` where no command has been
/// checked end to end (tests/cli/suite.rs runs the pytest one).
pub fn offer(kind: crate::init::ProjectKind) -> Option<String> {
    match kind {
        crate::init::ProjectKind::Pytest => Some(
            "gate suite --healthy 90% --regressed 70% --harness-exit-codes 2,3,4,5 -- \\\n      \
             'python3 -m pytest -q -p no:cacheprovider -p no:randomly -p no:rerunfailures --junitxml=\"$GATE_JUNIT\"'"
                .to_string(),
        ),
        // The command of docs/runners.md that tests/cli/suite.rs runs end to end; nextest
        // writes JUnit only where a profile says, hence the note.
        crate::init::ProjectKind::Cargo => Some(
            "gate suite --healthy 90% --regressed 70% --harness-exit-codes 4,96,101 -- \\\n      \
             'rm -f target/nextest/ci/junit.xml; cargo nextest run --profile ci --retries 0 --no-fail-fast; \
             s=$?; cp target/nextest/ci/junit.xml \"$GATE_JUNIT\" 2>/dev/null; exit $s'\n  \
             (with cargo-nextest, and `[profile.ci.junit] path = \"junit.xml\"` in .config/nextest.toml)"
                .to_string(),
        ),
        _ => None,
    }
}
