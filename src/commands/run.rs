//! `gate run`: glue between the command line and the run engine in [`crate::runner`].
//!
//! Load the plan and apply the flags (a stage's refusal is [`crate::runner::stages`]'s); open
//! the ledger session (lock, header or resume) and the box; [`crate::runner::run_plan`] runs
//! each task by its kind, its events to the ledger and to the progress display; then decide,
//! close the ledger and publish the reports — all from the rows this process wrote, read back
//! through its own descriptor and checked (invariant 10).

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::cli::{OutputArgs, RunArgs};
use crate::error::Error;
use crate::exit;
use crate::ledger::{Header, RunStatus};
use crate::model::{Judgement, Shard, Verdict};
use crate::plan::Plan;
use crate::progress::Progress;
use crate::publish::{Guarded, Outputs};
use crate::runner::redact::Redactor;
use crate::runner::sandbox::Sandbox;
use crate::runner::session::{Session, header};
use crate::runner::sys::Interrupt;
use crate::runner::{RunOptions, run_plan};

/// Execute `gate run`; returns the exit code.
pub fn execute(args: &RunArgs, output: &OutputArgs) -> Result<u8, Error> {
    let plan_path = crate::plan::discover::resolve(args.plan.as_deref(), Path::new("."))
        .map_err(Error::Usage)?;
    let mut plan = Plan::load(&plan_path)?;
    super::warn_about(&plan);
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
    crate::runner::check_jobs(&plan)?;
    let shard = args.shard.as_deref().map(str::parse::<Shard>);
    let shard = shard.transpose().map_err(Error::Usage)?;
    let mut skipped = Vec::new();
    if let Some(stage) = args.stage {
        plan.select_stage(stage).map_err(Error::Usage)?;
        skipped =
            crate::runner::stages::after_earlier_stages(&mut plan, stage, shard, &args.after)?;
    }
    if let Some(s) = shard {
        plan.check_shard(s).map_err(Error::Usage)?;
    }
    let mut guarded = vec![
        Guarded::written_ledger(&args.ledger),
        Guarded::read("the plan file", &plan_path, false),
    ];
    // `--ledger` must not replace an earlier stage's evidence.
    let after = args.after.iter();
    guarded.extend(after.map(|l| Guarded::read("a ledger given to `--after`", l, true)));
    let mut outputs = super::preflight(&args.reports, &guarded)?;

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
    // What rendering makes of the reports' text is redacted once more (the preflight's
    // scrub), against every secret value the run knows: gate's environment's and every
    // task's `env:` and base side's (review 50, rev50d 03: a secret given only in a task's
    // `env:`, printed with a control character the Markdown folds to a space). Not
    // `policy.redact`'s patterns: those are for the trials' text, not for gate's own.
    let everything =
        Redactor::of_process_env(Vec::new()).with_env(plan.tasks.iter().flat_map(|t| {
            let base = t
                .kind
                .compare()
                .map(|c| c.base.env.as_slice())
                .unwrap_or(&[]);
            (t.env.iter().chain(base)).map(|(k, v)| (k.as_str(), v.as_str()))
        }));
    outputs.scrub_with(move |t| everything.apply(t));
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
    // The `node_modules` a node grader loads its packages from are held read-only (review
    // 22, 14) and fingerprinted (review 28, 01: a package file hard-linked to a file the
    // trials write changes under its held name); those not there yet are watched.
    let node = crate::plan::state::node_folders(&plan);
    let mut dirs = state_dirs(&out_dir, &outputs);
    let snapshot = crate::plan::state::Snapshot::take(&[named.as_slice(), &after].concat())
        .with_folders(&[folders.as_slice(), &node.held].concat(), &{
            // Where the box is off, a tool the check runs may keep its cache there (with the
            // box on nothing writes there: review 29, 01a).
            let off = plan.policy.sandbox.mode == crate::model::SandboxMode::Off;
            let caches = node.held.iter().filter(|_| off).map(|m| m.join(".cache"));
            dirs.iter().cloned().chain(caches).collect::<Vec<_>>()
        });
    if let Some(blind) = snapshot.blind() {
        return Err(Error::Harness(format!(
            "`{}` holds more than {} entries: a change a trial made in it would not be seen, \
             and the check reads it (a grader's folder, a fixture's, or a node grader's \
             `node_modules`); no trial was run (keep what the check reads in a smaller folder)",
            blind.display(),
            crate::plan::state::MAX_FOLDER_ENTRIES
        )));
    }
    let mut protected = protected_paths(args, &plan_path, &out_dir, &outputs);
    protected.extend(named.iter().chain(&after).chain(&folders).cloned());
    // A `git` grader reads the task's `.git`: read-only too (not fingerprinted: git itself,
    // run by the grader where the box is off, refreshes the index).
    protected.extend(crate::plan::state::git_folders(&plan));
    protected.extend(node.held.iter().cloned());
    dirs.extend(
        after
            .iter()
            .filter_map(|l| l.parent().map(Path::to_path_buf)),
    );
    // A trial may make links in its `TMPDIR`; one inside a `writes` folder it could move
    // there whole, its right to make links with it (review 67, 04).
    let tmp = std::env::temp_dir();
    let tmp = std::fs::canonicalize(&tmp).unwrap_or(tmp);
    for t in plan.tasks.iter().filter(|t| t.writes.is_some()) {
        for cwd in std::iter::once(&t.cwd).chain(t.compare().map(|c| &c.base.cwd)) {
            if let Some(w) = t.write_roots(cwd).into_iter().find(|w| tmp.starts_with(w)) {
                return Err(Error::Harness(format!(
                    "the temporary folder `{}` ($TMPDIR) lies in `{}`, a folder task `{}`'s \
                     `writes:` names, where a trial could move its own `TMPDIR` (in which it \
                     may make links); no trial was run (point TMPDIR outside the task's folder)",
                    tmp.display(),
                    w.display(),
                    t.id
                )));
            }
        }
    }
    let compares = plan.tasks.iter().any(|t| t.compare().is_some());
    let mut sandbox = Sandbox::new(
        &plan.policy.sandbox,
        &protected,
        &dirs,
        compares,
        plan.writes(),
    )
    .map_err(Error::Harness)?;
    let cwds: Vec<PathBuf> = plan
        .tasks
        .iter()
        .flat_map(|t| std::iter::once(t.cwd.clone()).chain(t.compare().map(|c| c.base.cwd.clone())))
        .collect();
    sandbox.pin_checks(&cwds);
    sandbox.watch(&node.watched);
    sandbox.watch_manifests(&node.manifests);
    sandbox.watch_scripts(&node.scripts);
    // What Python runs by itself (`sitecustomize`, a pytest plugin) in the folders the trials
    // write is looked at before each check, however the check starts its Python (review 75).
    let checks = plan
        .tasks
        .iter()
        .any(|t| t.check.is_some() || t.compare().is_some_and(|c| c.base.check.is_some()));
    if checks
        && plan.policy.sandbox.mode != crate::model::SandboxMode::Off
        && let Some(why) = sandbox.watch_autoloads(&crate::plan::state::writable_roots(&plan))
    {
        return Err(Error::Harness(why.refusal()));
    }
    // Where the node walls look: every task's whole folder, whatever its `writes:`.
    let writable = crate::plan::state::task_folder_roots(&plan);
    // Past a bound of entries read, a wall no longer sees what a trial writes there, and a
    // check could load it: no trial is run, rather than a verdict the trials could have
    // shaped (review 50, rev50e 04, 15: a configuration past the walk's bound, there at the
    // start or pushed there before a `--resume`, was only warned about).
    let past_bound = |what: String| {
        Err(Error::Harness(format!(
            "{what}, so a file a trial writes past them would not be seen before a node \
             check that may read it; no trial was run (keep large data, caches and \
             environments outside the folders the trials write, or run the node check from a \
             smaller folder)"
        )))
    };
    if let Some(top) = sandbox.watch_configs(
        &node.configs,
        &node.config_roots,
        &writable,
        &node.named_configs,
    ) {
        return past_bound(format!(
            "the folders below `{}` (and those its links into the trials' folders lead to) hold \
             more than {} entries outside `node_modules` and `.git`: the configuration a node \
             tool reads there is compared before each check up to that many",
            top.display(),
            crate::runner::sandbox::configs::WALK_ENTRIES
        ));
    }
    // The `package.json` and `node_modules` walls stand for every check (review 41: a
    // grader may start node by a spelling gate does not read), but a bound past which they
    // are blind refuses the run only where a check is known to run node; elsewhere (a shell
    // or Python grader over a task folder with a large dataset) it is said.
    let node_checks = !node.config_roots.is_empty();
    let warn = |what: String| {
        if !output.quiet {
            eprintln!(
                "warning: {what}; a change a trial makes past them is not seen before a check"
            );
        }
    };
    if let Some(top) = &node.partial {
        let what = format!(
            "the folders below `{}` hold more than {} entries outside `node_modules` and \
             `.git`: the `package.json` files and `node_modules` folders node may load from \
             there are watched up to that many",
            top.display(),
            crate::plan::state::MANIFEST_SCAN_ENTRIES
        );
        if node_checks {
            return past_bound(what);
        }
        warn(what);
    }
    if let Some(partial) = sandbox.watch_packages(&node.packages, &node.launched) {
        let what = format!(
            "`{}` and the `node_modules` after it hold more than {} entries: the packages node \
             may load for a check are watched up to that many",
            partial.display(),
            crate::runner::sandbox::packages::PACKAGE_ENTRIES
        );
        if node_checks {
            return past_bound(what);
        }
        warn(what);
    }
    let sandbox = Arc::new(sandbox);
    let walls = sandbox.walls().clone();
    let mut progress = Progress::new(output.quiet);
    let notice = |line: &str| progress.println(line);
    let mut session = if args.resume {
        let session = Session::resume(&args.ledger, &plan, shard, &argv, Some(walls), &notice)?;
        let started = session.prior().map(|l| l.header().started_at.clone());
        if let Some(p) = started.as_deref().and_then(|t| sandbox.written_since(t)) {
            // The walls compare with what they found when this process started; a trial of
            // the first part may have written it (review 43, 16: a package rewritten, the
            // run interrupted, then resumed).
            return Err(Error::Harness(format!(
                "`{}` was written after the run started ({}): it is a package node may load \
                 for a check, a `package.json` on node's way, a tool's configuration there, \
                 or a `sitecustomize` or pytest plugin where the trials write, and gate cannot \
                 tell an \
                 agent's install there from a trial's rewrite, so `--resume` does not take it \
                 as it finds it (a write less than a second before the start counts: the \
                 kernel stamps files with a coarse clock); no trial was run (run the plan \
                 again from the start, and let a second pass between an install and `gate \
                 run`)",
                p.display(),
                started.as_deref().unwrap_or_default()
            )));
        }
        session
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
    let options = RunOptions {
        shard,
        run_dir,
        sandbox: Arc::clone(&sandbox),
        redactors: task_redactors,
        interrupt: &interrupt,
    };
    let mut status = run_plan(&plan, &options, &mut session, &mut progress)?;
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
    if let (RunStatus::Complete, Some(made)) = (status, sandbox.moved()) {
        // Each check looked before it ran; a change after the last check is seen here.
        progress.println(&format!(
            "error: `{}` changed during the run (it appeared, went, or was re-pointed), where \
             node looks for a check's packages (a trial did it); no verdict is published (keep \
             node graders and their packages outside the folders the trials write)",
            made.display()
        ));
        status = RunStatus::HarnessError;
    }
    if let (RunStatus::Complete, Some(file)) = (status, sandbox.changed_package_since_start()) {
        // Each check looked before it ran; a change after the last look (a trial that ran
        // beside a check, with `policy.jobs` above 1: review 42, 110t) is seen here.
        progress.println(&format!("error: {}", sandbox.package_refusal(&file)));
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
            let report = session.own_report("run")?;
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
    let report = session
        .own_report("run")?
        .with_exit_code(code)
        .listing_every_case(output.verbose);
    // A closed stdout (`gate run plan | head -1`) ends the printing, not the run. With a
    // report on stdout (`--json -`), the human summary goes to stderr.
    let to_stdout = outputs.to_stdout();
    // A report path swapped while the command ran: say so instead of printing a verdict
    // that is then not published.
    outputs.recheck()?;
    super::print_summary(&report, output, outputs);
    let ledger_line = format!("ledger: {}\n", session.path().display());
    let mut out = std::io::stdout().lock();
    if to_stdout {
        let _ = std::io::stderr().lock().write_all(ledger_line.as_bytes());
        crate::report::emit_to(&report, outputs, &mut out, &|w| progress.println(w))?;
    } else {
        crate::report::emit_to(&report, outputs, &mut out, &|w| progress.println(w))?;
        let _ = out.write_all(ledger_line.as_bytes());
    }
    Ok(code)
}
