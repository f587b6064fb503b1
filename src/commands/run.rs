//! `gate run`: glue between the command line and the run engine in [`crate::runner`].
//!
//! Load the plan and apply the flags; open the ledger session (lock, header or resume); run
//! each task with the scheduler, whose events go to the ledger and to the progress display;
//! then decide, close the ledger and publish the reports — all from the rows this process
//! wrote, read back through its own descriptor and checked (invariant 10).

use std::io::{IsTerminal as _, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cli::{OutputArgs, RunArgs};
use crate::error::Error;
use crate::exit;
use crate::ledger::{Header, Ledger, RunStatus, Shard};
use crate::model::{Judgement, Verdict};
use crate::output::Output;
use crate::plan::Plan;
use crate::progress::Progress;
use crate::publish::{Guarded, Outputs};
use crate::report::Report;
use crate::report::words::verdict_text;
use crate::runner::events::Fanout;
use crate::runner::redact::Redactor;
use crate::runner::sandbox::Sandbox;
use crate::runner::scheduler::{ProcessLauncher, TaskConfig, TaskEnd, run_suite, run_task};
use crate::runner::session::{Session, header};
use crate::runner::suite::SuiteLauncher;
use crate::runner::sys::Interrupt;

/// Execute `gate run`; returns the exit code.
pub fn execute(args: &RunArgs, output: &OutputArgs) -> Result<u8, Error> {
    let plan_path = crate::plan::discover::resolve(args.plan.as_deref(), Path::new("."))
        .map_err(Error::Usage)?;
    let mut plan = Plan::load(&plan_path)?;
    for w in plan.rate_warnings() {
        eprintln!("{}", crate::untrusted::log_line(&w));
    }
    for w in crate::plan::reach::definition_warnings(&plan) {
        eprintln!("{}", crate::untrusted::log_line(&w));
    }
    if let Some(s) = plan.selections.first() {
        return Err(Error::Usage(format!(
            "{}:{}: task `{}` selects JUnit test cases (`junit:`), which `gate run` cannot run; \
             judge JUnit files with `gate ingest RESULT... --plan {}`",
            plan_path.display(),
            s.line,
            s.id,
            plan_path.display()
        )));
    }
    if let Some(j) = args.jobs {
        crate::plan::bounds::check_jobs(j).map_err(|m| Error::Usage(format!("`--{}", &m[1..])))?;
        plan.policy.jobs = j;
    }
    if let Some(p) = args.on_inconclusive {
        plan.policy.on_inconclusive = p.into();
    }
    plan.retain_tasks(&args.tasks).map_err(Error::Usage)?;
    for t in &plan.tasks {
        // A compare suite runs both sides of a run at once: `jobs / 2` runs at a time, as
        // its runner counts them (`jobs` 2 and 3 once refused a fixed `results:` path here).
        let runs_at_once = match (&t.suite, &t.compare) {
            (Some(_), Some(_)) => crate::runner::suite_pairs::lanes(plan.policy.jobs),
            _ => plan.policy.jobs,
        };
        crate::runner::suite::check_jobs(t, runs_at_once)?;
    }
    let shard = args.shard.as_deref().map(str::parse::<Shard>);
    let shard = shard.transpose().map_err(Error::Usage)?;
    let mut skipped = Vec::new();
    if let Some(stage) = args.stage {
        plan.select_stage(stage).map_err(Error::Usage)?;
        skipped = after_earlier_stages(&mut plan, stage, shard, &args.after)?;
    }
    if let Some(s) = shard {
        plan.check_shard(s).map_err(Error::Usage)?;
    }
    let mut guarded = vec![
        Guarded {
            what: "--ledger",
            path: &args.ledger,
            written: true,
            ledger: true,
        },
        Guarded {
            what: "the plan file",
            path: &plan_path,
            written: false,
            ledger: false,
        },
    ];
    // `--ledger` must not replace an earlier stage's evidence.
    guarded.extend(args.after.iter().map(|l| Guarded {
        what: "a ledger given to `--after`",
        path: l,
        written: false,
        ledger: true,
    }));
    let outputs = super::preflight(&args.reports, &guarded)?;

    let interrupt =
        Interrupt::install().map_err(|e| Error::output("cannot install signal handlers", e))?;
    // A trial's process that escapes its process group becomes gate's child, killed below.
    crate::runner::sys::adopt_orphans()
        .map_err(|e| Error::output("cannot become the reaper of the trials' orphans", e))?;
    let redactor = Redactor::of_process_env(plan.policy.redact.clone());
    let argv = redactor.argv();
    // Each task's redactor also knows the secrets of its own `env:`.
    let task_redactors: Vec<Redactor> = plan
        .tasks
        .iter()
        .map(|t| redactor.with_env(t.env.iter().map(|(k, v)| (k.as_str(), v.as_str()))))
        .collect();
    let out_dir = args
        .ledger
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    // Tasks run in their own directories: every path handed to them must be absolute.
    let out_dir = std::path::absolute(out_dir)
        .map_err(|e| Error::input(format!("cannot resolve `{}`", out_dir.display()), e))?;
    // The box is probed before the ledger is touched: a `required` box this machine cannot
    // raise refuses the run without a trace.
    // What the plan names (its graders, scripts and fixtures) and the earlier stages'
    // ledgers decide the verdict as much as gate's own files: no trial may write them, and
    // their contents now are compared with their contents when the trials are over.
    let named = crate::plan::state::named_files(&plan);
    let after: Vec<PathBuf> = args
        .after
        .iter()
        .map(|l| std::path::absolute(l).unwrap_or_else(|_| l.clone()))
        .collect();
    // The folders that hold a grader or a fixture are gate's as folders: a file a trial
    // adds beside a grader (a `conftest.py`, a `.pyc`) runs inside it.
    let folders = crate::plan::state::guarded_folders(&plan);
    let mut dirs = state_dirs(&out_dir, &outputs);
    let snapshot = crate::plan::state::Snapshot::take(&[named.as_slice(), &after].concat())
        .with_folders(&folders, &dirs);
    let mut protected = protected_paths(args, &plan_path, &out_dir, &outputs);
    protected.extend(named.iter().chain(&after).chain(&folders).cloned());
    // A `git` grader reads the task's `.git`: read-only too (not fingerprinted: git itself,
    // run by the grader where the box is off, refreshes the index).
    protected.extend(crate::plan::state::git_folders(&plan));
    dirs.extend(
        after
            .iter()
            .filter_map(|l| l.parent().map(Path::to_path_buf)),
    );
    let compares = plan.tasks.iter().any(|t| t.compare.is_some());
    let sandbox = Arc::new(
        Sandbox::new(&plan.policy.sandbox, &protected, &dirs, compares).map_err(Error::Harness)?,
    );
    let walls = sandbox.walls().clone();
    let mut progress = Progress::new(output.quiet);
    let notice = |line: &str| progress.println(line);
    let mut session = if args.resume {
        Session::resume(&args.ledger, &plan, shard, &argv, Some(walls), &notice)?
    } else {
        let header = |run_id: &str| Header {
            sandbox: Some(walls),
            ..header(&plan, run_id, &argv, shard, &task_redactors)
        };
        Session::create_with(&args.ledger, header, &notice)?
    };
    for line in skipped.iter().filter(|_| !output.quiet) {
        progress.println(line);
    }
    for t in plan.tasks.iter().filter(|_| !output.quiet) {
        if let Some(words) = &t.designed {
            progress.println(&format!("{}: {words}", t.id));
        } else if output.verbose {
            progress.println(&format!("{}: {}", t.id, t.sampling.describe()));
        }
    }

    // Logs and result files of each run in their own folder: a later run never overwrites
    // an earlier run's evidence. A resumed run keeps its run id but gets a folder of its
    // own too: a trial that outlived the interrupted process (gate was SIGKILLed, its trials'
    // groups were not) may still write its result file late, and the resumed run's same
    // trial must be graded on its own result only, never on that one.
    let mut run_dir = out_dir.join("runs").join(session.run_id());
    if args.resume {
        let since_epoch = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        run_dir = run_dir.join(format!(
            "resume-{}-{}",
            since_epoch.as_nanos(),
            std::process::id()
        ));
    }
    let mut status = RunStatus::Complete;
    for (task, redactor) in plan.tasks.iter().zip(task_redactors) {
        let end = if task.compare.is_some() && task.suite.is_some() {
            let run_id = session.run_id().to_string();
            let suite = crate::runner::suite_pairs::SuiteCompare::new(
                task,
                &plan.policy,
                &run_id,
                &run_dir,
                &redactor,
                &sandbox,
                session.prior(),
            )?;
            let mut sinks = Fanout(vec![&mut session, &mut progress]);
            suite.run(&interrupt, &mut sinks)?
        } else if task.compare.is_some() {
            let history = session.pair_history(&task.id);
            if history.decided {
                continue;
            }
            let run_id = session.run_id().to_string();
            let mut sinks = Fanout(vec![&mut session, &mut progress]);
            crate::runner::pairs::run_compare_task(
                task,
                &plan.policy,
                &run_id,
                &run_dir,
                &redactor,
                &sandbox,
                history,
                &interrupt,
                &mut sinks,
            )?
        } else if let Some(suite) = &task.suite {
            let run_id = session.run_id().to_string();
            let mut launcher =
                ProcessLauncher::new(task, &plan.policy, &run_id, &run_dir, redactor);
            launcher.spec.sandbox = Some(Arc::clone(&sandbox));
            launcher
                .spec
                .harness_exit_codes
                .extend(&suite.harness_exit_codes);
            let (config, mut cases) =
                crate::runner::suite::plan(task, plan.policy.jobs, shard, session.prior())?;
            let launcher = SuiteLauncher::new(launcher, suite, &cases);
            let history = session.history(&task.id);
            let mut sinks = Fanout(vec![&mut session, &mut progress]);
            run_suite(
                &config, &launcher, history, &mut cases, &interrupt, &mut sinks,
            )?
        } else {
            let history = session.history(&task.id);
            if history.decided {
                continue;
            }
            let config = TaskConfig::new(task, plan.policy.jobs, shard).in_stage(plan.stage);
            let mut launcher =
                ProcessLauncher::new(task, &plan.policy, session.run_id(), &run_dir, redactor);
            launcher.spec.sandbox = Some(Arc::clone(&sandbox));
            let mut sinks = Fanout(vec![&mut session, &mut progress]);
            run_task(&config, &launcher, history, &interrupt, &mut sinks)?
        };
        match end {
            TaskEnd::Decided => {}
            TaskEnd::HarnessError => {
                status = RunStatus::HarnessError;
                break;
            }
            TaskEnd::Interrupted => {
                status = RunStatus::Interrupted;
                break;
            }
        }
    }
    // No trial runs any more: whatever a trial left behind (escaped its process group, so
    // the group kills missed it) dies now, before the ledger is checked and published.
    crate::runner::sys::kill_orphans();
    if let (RunStatus::Complete, Some(planted)) = (status, sandbox.planted_plans().first()) {
        // The box lets a task create files in its working folder: one named like a plan gate
        // finds by itself would be what the next `gate run` there loads.
        progress.println(&format!(
            "error: `{}` appeared during the run, and `gate run` without a plan path would load \
             it next instead of the plan it names; no verdict is published (a trial may not create \
             it: remove it, or give the plan's path)",
            planted.display()
        ));
        status = RunStatus::HarnessError;
    }
    if let (RunStatus::Complete, Some(changed)) = (status, snapshot.changed().first()) {
        // Only where the box's walls are missing (an old kernel, `policy.sandbox: off`) can
        // a trial have changed them; the trials after that change ran on other graders,
        // scripts, data or earlier-stage evidence than the ones the ledger names.
        progress.println(&format!(
            "error: `{}` changed during the run (a trial wrote it); it is a grader, script or \
             fixture the plan names, a folder that holds one (a file appeared or changed in it), \
             or an earlier stage's ledger, so the trials did not all run on the same inputs and \
             no verdict is published",
            changed.display()
        ));
        status = RunStatus::HarnessError;
    }
    finish(
        &outputs,
        output,
        &mut session,
        status,
        // A shard, or a stage after the first, sees part of the evidence: `gate report`
        // over every shard (and stage) decides. Stage 1 run whole sees the first stage end.
        shard.is_some() || plan.stage.is_some_and(|s| s > 1),
        &interrupt,
        &progress,
    )
}

/// Stage `stage` of a staged run starts only after the earlier stages, from their ledgers
/// (`--after`): they must be stages 1 to `stage - 1` of this plan, complete, and say CONTINUE
/// with this stage, or no trial is launched. The tasks already decided (or past their last
/// stage) are dropped from the run, so their later ordinals are never launched; returns a
/// line for each, to print. Stage 1 takes no `--after`.
fn after_earlier_stages(
    plan: &mut Plan,
    stage: u64,
    shard: Option<Shard>,
    after: &[PathBuf],
) -> Result<Vec<String>, Error> {
    use crate::error::Context as _;
    if stage == 1 {
        if let Some(l) = after.first() {
            return Err(Error::Usage(format!(
                "`--after {}`: stage 1 has no earlier stages",
                l.display()
            )));
        }
        return Ok(Vec::new());
    }
    let earlier = match stage {
        2 => "stage 1".to_string(),
        _ => format!("stages 1 to {}", stage - 1),
    };
    if after.is_empty() {
        return Err(Error::Usage(format!(
            "`--stage {stage}` needs the ledgers of {earlier} (`--after LEDGER`, repeatable): \
             the stage runs only if they say CONTINUE, and only the tasks they leave undecided"
        )));
    }
    let ledgers = after
        .iter()
        // As `gate report`: only rows the hash chain covers decide what the stage runs.
        .map(|p| Ledger::read(p).map(Ledger::chain_covered))
        .collect::<Result<Vec<_>, _>>()
        .context("`--after`: cannot read ledger")?;
    if let Some(l) = ledgers
        .iter()
        .find(|l| l.header().plan_hash != plan.hash || l.header().fixture_hash != plan.fixture_hash)
    {
        return Err(Error::Usage(format!(
            "`--after {}`: a ledger of another plan or other fixtures than `{}`",
            l.path.display(),
            plan.path.display()
        )));
    }
    for l in &ledgers {
        let changed = crate::plan::state::programs_changed(&l.header().programs, plan);
        if !changed.is_empty() {
            return Err(Error::Usage(format!(
                "`--after {}`: the earlier stage ran other programs than this checkout names: `{}` \
                 changed since; every stage must judge the same agent and graders",
                l.path.display(),
                changed.join("`, `")
            )));
        }
    }
    let report = Report::from_ledgers(&ledgers, None)
        .context("`--after`: the earlier stages' ledgers are not a staged run")?;
    refuse_unmergeable_stage(&ledgers, shard)?;
    let status = match &report.stages {
        Some(s) if s.partial.is_none() => s,
        Some(_) => {
            return Err(Error::Usage(format!(
                "`--after`: give every shard of {earlier}, not one ledger"
            )));
        }
        None => {
            return Err(Error::Usage(
                "`--after`: these ledgers are not stages of a staged run (`gate run --stage`)"
                    .into(),
            ));
        }
    };
    match (report.continue_with(), status.decided_in) {
        (Some(next), _) if next == stage => {}
        (Some(next), _) => {
            return Err(Error::Usage(format!(
                "`--stage {stage}`: the ledgers given are stages 1 to {}, so the next stage is {next}",
                status.through
            )));
        }
        (None, decided) => {
            return Err(Error::Usage(format!(
                "`--stage {stage}`: the staged run {} ({} after stage {}); no later stage runs",
                if decided.is_some() {
                    "already decided"
                } else {
                    "has no next stage"
                },
                report.decision(),
                status.through
            )));
        }
    }
    let mut lines = Vec::new();
    for t in &plan.tasks {
        let Some(s) = status.tasks.iter().find(|s| s.id == t.id) else {
            return Err(Error::Usage(format!(
                "`--stage {stage}`: task `{}` did not run in stages 1 to {} (were they run with `--task`?): \
                 select the same tasks in every stage",
                t.id, status.through
            )));
        };
        if !s.runs_next {
            let why = match (s.decided_in, report.tasks.iter().find(|r| r.id() == t.id)) {
                (Some(d), Some(r)) => format!("{} in stage {d}", verdict_text(r.verdict())),
                _ => format!("its last stage was {}", s.last_stage),
            };
            lines.push(format!("{}: {why}; runs nothing in stage {stage}", t.id));
        }
    }
    plan.tasks
        .retain(|t| status.tasks.iter().any(|s| s.id == t.id && s.runs_next));
    if plan.tasks.is_empty() {
        return Err(Error::Usage(format!(
            "`--stage {stage}`: every task selected is decided ({}); nothing runs in stage {stage}",
            lines.join("; ")
        )));
    }
    Ok(lines)
}

/// A stage whose ledger `gate report` could never merge with the earlier stages' is refused
/// before any trial: every trial it ran would be wasted. The report merges shards of one
/// shard count only, never a whole run with shards, and only stages and shards of one attempt
/// of one CI run (the matrix job may differ from stage to stage).
fn refuse_unmergeable_stage(ledgers: &[Ledger], shard: Option<Shard>) -> Result<(), Error> {
    let Some(first) = ledgers.first() else {
        return Ok(());
    };
    let m = |s: Option<Shard>| {
        s.map_or_else(
            || "a whole run".to_string(),
            |s| format!("shards of {}", s.m),
        )
    };
    if first.header().shard.map(|s| s.m) != shard.map(|s| s.m) {
        return Err(Error::Usage(format!(
            "`--after {}`: the earlier stages ran as {}, this stage as {}: every stage of a staged run \
             runs the same number of shards (or every stage whole)",
            first.path.display(),
            m(first.header().shard),
            m(shard)
        )));
    }
    // Every stage of one staged run runs in one attempt of one CI run: a stage-1 ledger of
    // another run is not this run's evidence (break 14 of issue 29).
    let key = |c: &Option<crate::ledger::CiRun>| {
        c.as_ref()
            .map(|c| (c.run_id.clone(), c.run_attempt.clone()))
    };
    let here = crate::ledger::CiRun::from_env();
    for l in ledgers {
        if key(&l.header().ci) != key(&here) {
            let ran = |c: &Option<crate::ledger::CiRun>| match c {
                Some(c) => format!("in attempt {} of CI run {}", c.run_attempt, c.run_id),
                None => "outside GitHub Actions".to_string(),
            };
            return Err(Error::Usage(format!(
                "`--after {}`: the earlier stage ran {}, this stage {}: `gate report` merges only \
                 the stages and shards of one attempt of one CI run (re-run all jobs of the workflow run)",
                l.path.display(),
                ran(&l.header().ci),
                ran(&here)
            )));
        }
    }
    Ok(())
}

/// Gate's own paths, which no trial may write: its binary, the plan, the ledger and its lock,
/// the run folders beside the ledger (logs of this and earlier runs), every report file, and
/// the CI's workflow-command files.
fn protected_paths(
    args: &RunArgs,
    plan_path: &Path,
    out_dir: &Path,
    outputs: &crate::publish::Outputs,
) -> Vec<PathBuf> {
    let mut paths = vec![
        plan_path.to_path_buf(),
        args.ledger.clone(),
        crate::ledger::lock_path(&args.ledger),
        out_dir.join("runs"),
    ];
    paths.extend(std::env::current_exe());
    paths.extend(outputs.file_paths());
    for var in ["GITHUB_OUTPUT", "GITHUB_ENV", "GITHUB_PATH", "GITHUB_STATE"] {
        paths.extend(
            std::env::var_os(var)
                .filter(|v| !v.is_empty())
                .map(PathBuf::from),
        );
    }
    paths
}

/// gate's folders, read-only to a trial wherever they hold none of its roots (the box's
/// mount layer): the ledger's and every report's.
fn state_dirs(out_dir: &Path, outputs: &crate::publish::Outputs) -> Vec<PathBuf> {
    let mut dirs = vec![out_dir.to_path_buf()];
    dirs.extend(
        outputs
            .file_paths()
            .iter()
            .filter_map(|p| std::path::absolute(p).ok()?.parent().map(Path::to_path_buf)),
    );
    dirs
}

/// Decide, write the footer, print and write the reports, and return the exit code — all
/// from the rows this run wrote, as read back and checked by [`Session::verified`].
fn finish(
    outputs: &Outputs,
    output: &OutputArgs,
    session: &mut Session,
    status: RunStatus,
    partial: bool,
    interrupt: &Interrupt,
    progress: &Progress,
) -> Result<u8, Error> {
    let (verdict, code) = match status {
        RunStatus::Interrupted => (
            Judgement::Verdict(Verdict::Inconclusive),
            interrupt.exit_code(),
        ),
        RunStatus::HarnessError => (Judgement::HarnessError, exit::HARNESS),
        RunStatus::Complete => {
            // The verdict is recomputed from the rows, exactly as `gate report` would. This
            // reading is dropped before the one after the footer, which the reports use
            // (they say how the run ended), to keep peak memory to one copy.
            let report = own_report(&session.verified()?)?;
            let verdict = report.verdict();
            // A partial view (a shard, a stage after the first) publishes no verdict of its
            // own unless its trials already make FAIL certain; stage 1 run whole exits as
            // `gate report` over it would (5 for CONTINUE).
            let code = if partial {
                exit::for_run(verdict, report.on_inconclusive, true)
            } else {
                report.exit_code()
            };
            (verdict, code)
        }
    };
    session.close(status, verdict, code)?;
    // The exit code shown is the one gate run uses (a shard exits 0, an interrupt 130).
    let report = own_report(&session.verified()?)?
        .with_exit_code(code)
        .listing_every_case(output.verbose);
    // A closed stdout (`gate run plan | head -1`) ends the printing, not the run. With a
    // report on stdout (`--json -`), the human summary goes to stderr.
    let to_stdout = outputs.to_stdout();
    let human_is_terminal = if to_stdout {
        std::io::stderr().is_terminal()
    } else {
        std::io::stdout().is_terminal()
    };
    // A report path swapped while the command ran: say so instead of printing a verdict
    // that is then not published.
    outputs.recheck()?;
    let text = Output::resolve(&output.into(), human_is_terminal).summary(&report.terminal());
    let ledger_line = format!("ledger: {}\n", session.path().display());
    let mut out = std::io::stdout().lock();
    if to_stdout {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes());
        let _ = err.write_all(ledger_line.as_bytes());
        drop(err);
        crate::report::emit_to(&report, outputs, &mut out, &|w| progress.println(w))?;
    } else {
        let _ = out.write_all(text.as_bytes());
        crate::report::emit_to(&report, outputs, &mut out, &|w| progress.println(w))?;
        let _ = out.write_all(ledger_line.as_bytes());
    }
    Ok(code)
}

/// The report of this run's own rows. They were written by this process, so a report that
/// cannot be made from them is a fault of the run (exit 4), not of the user's input.
fn own_report(ledger: &Ledger) -> Result<Report, Error> {
    Report::from_ledgers(std::slice::from_ref(ledger), None).map_err(|e| {
        Error::Harness(format!(
            "cannot make a report from this run's own ledger ({e}); no verdict is published"
        ))
    })
}
