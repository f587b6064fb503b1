//! `gate ingest`: judge JUnit files that a test runner wrote, exactly as `gate run` judges
//! the trials it runs.
//!
//! [`crate::ingest`] turns the files into first-attempt trials per test case; each test case
//! becomes a task with the rule the plan (or the flags) gives it; every attempt is written to
//! a hash-chained ledger (whose header names each file and its SHA-256); the first attempts
//! are fed to the same [`crate::sampler::Sampler`] as `gate run`, in ordinal order, and runs
//! beyond the decision are recorded as excluded. The verdict, the reports and the exit code
//! are then computed from the ledger by [`crate::report`], as for `gate run`, so `gate
//! verify` and `gate report` work on the result. Not yet glue only: this file still builds
//! the ledger header, the attempt rows and the decision rows itself (`gate suite` reuses
//! them through `assign`, `judge_runs`, `options`, `preflight` and `rules`).

use std::io::Write as _;

use crate::cli::{DesignRule, ErrorPolicy, IngestArgs, IngestFormat, OutputArgs};
use crate::error::Error;
use crate::ingest::{self, Format, History, Options};
use crate::ledger::{
    DecisionRow, Header, Ledger, OnInconclusive, Row, RunStatus, SourceFile, TaskSpec,
    TimeoutPolicy, now_rfc3339, sha256_hex,
};
use crate::model::{Judgement, Verdict};
use crate::plan::schema::{Rate, Rule, SamplingSpec};
use crate::plan::{Plan, ResolvedRule, resolve_rule};
use crate::publish::Guarded;
use crate::report::Report;
use crate::runner::redact::Redactor;
use crate::runner::session::Session;
use crate::runner::sys::hostname;
use crate::sampler::OrderedSampler;

/// The rules to judge with: a plan file's, or one rule for every test case.
pub(crate) enum Rules {
    Plan(Box<Plan>),
    Flags { rule: ResolvedRule, words: String },
}

/// Execute `gate ingest`; returns the exit code.
pub fn execute(args: &IngestArgs, output: &OutputArgs) -> Result<u8, Error> {
    let rules = rules(args)?;
    let outputs = preflight(args)?;
    // With a report on stdout (`--json -`), everything else goes to stderr.
    let to_stdout = outputs.to_stdout();
    let say = |text: &str| {
        if output.quiet {
            return;
        }
        let _ = if to_stdout {
            writeln!(std::io::stderr().lock(), "{text}")
        } else {
            writeln!(std::io::stdout().lock(), "{text}")
        };
    };
    let opts = options(args)?;
    // With `--base`, the base suite's files come first in the header's list.
    let mut base_runs = Vec::with_capacity(args.base.len());
    for path in &args.base {
        base_runs.push(ingest::read_run(path, &opts)?);
    }
    let mut runs = Vec::with_capacity(args.results.len());
    for path in &args.results {
        runs.push(ingest::read_run(path, &opts)?);
    }
    // What was detected: one line when every file is of one kind (twenty runs of a suite).
    let detected: Vec<String> = runs.iter().filter(|r| r.detected).map(describe).collect();
    match detected.first() {
        Some(first)
            if runs.len() > 1
                && detected.len() == runs.len()
                && detected.iter().all(|d| d == first) =>
        {
            say(&format!(
                "{} files read as {first} (detected; `--format` overrides)",
                runs.len()
            ));
        }
        _ => {
            for r in runs.iter().filter(|r| r.detected) {
                say(&format!(
                    "{}: read as {} (detected; `--format` overrides)",
                    r.path.display(),
                    describe(r)
                ));
            }
        }
    }
    for r in &runs {
        for note in &r.notes {
            say(&format!("{}: {note}", r.path.display()));
        }
    }
    judge_runs(args, output, &outputs, &rules, base_runs, runs)
}

/// Judge runs already read (from the files of `gate ingest`, or the suite runs of `gate
/// suite`): write the ledger, then print and emit the reports it recomputes to.
pub(crate) fn judge_runs(
    args: &IngestArgs,
    output: &OutputArgs,
    outputs: &crate::publish::Outputs,
    rules: &Rules,
    base_runs: Vec<ingest::RunFile>,
    runs: Vec<ingest::RunFile>,
) -> Result<u8, Error> {
    // With a report on stdout (`--json -`), everything else goes to stderr.
    let to_stdout = outputs.to_stdout();
    let say = |text: &str| {
        if output.quiet {
            return;
        }
        let _ = if to_stdout {
            writeln!(std::io::stderr().lock(), "{text}")
        } else {
            writeln!(std::io::stdout().lock(), "{text}")
        };
    };
    let sources: Vec<SourceFile> = base_runs
        .iter()
        .chain(runs.iter())
        .map(|r| SourceFile {
            path: r.path.display().to_string(),
            sha256: r.sha256.clone(),
            writer: r.writer.as_str().to_string(),
        })
        .collect();
    let skipped: u64 = runs.iter().map(|r| r.skipped).sum();
    let histories = ingest::histories(runs);
    // A test case whose name shows nothing (empty, blanks, invisible characters) would be a
    // task no reader can tell apart or select: refused, not judged under an empty name.
    if let Some(h) = histories
        .iter()
        .find(|h| crate::untrusted::is_blank(&h.test))
    {
        return Err(Error::Usage(format!(
            "a test case in the result files has no visible name (`{}`: no `name` and no `classname`, or only blanks and invisible characters); gate cannot name its task, so nothing is judged — give every test case a name",
            crate::untrusted::one_line(&h.test)
        )));
    }
    if histories.is_empty() {
        return Err(Error::Usage(format!(
            "the {} result file{} hold no test case that ran ({skipped} skipped); nothing to judge",
            sources.len(),
            if sources.len() == 1 { "" } else { "s" }
        )));
    }

    let (tasks, unselected) = assign(rules, &histories)?;
    let paired = compare_pairs(args, &tasks, &histories, base_runs, &say)?;
    if tasks.is_empty() {
        return Err(Error::Usage(
            "no test case is selected by the plan's tasks, and the plan sets no top-level `sampling:` for the rest"
                .into(),
        ));
    }
    if let Rules::Flags { words, .. } = &rules {
        say(&format!("every test case: {words}"));
    }
    if let Rules::Plan(plan) = &rules {
        for s in &plan.selections {
            if let Some(words) = &s.rule.designed {
                say(&format!("{}: {words}", s.id));
            }
        }
    }
    if !unselected.is_empty() {
        // A large suite can leave thousands unselected: name a few, count the rest.
        let mut named: Vec<String> = unselected
            .iter()
            .take(10)
            .map(|t| format!("`{t}`"))
            .collect();
        if unselected.len() > 10 {
            named.push(format!("and {} more", unselected.len() - 10));
        }
        say(&format!(
            "not judged (selected by no task, and the plan sets no top-level `sampling:`): {}",
            named.join(", ")
        ));
    }
    if skipped > 0 {
        say(&format!(
            "{skipped} skipped test-case record(s) are not trials and were left out"
        ));
    }

    let on_inconclusive = match (args.on_inconclusive, &rules) {
        (Some(p), _) => p.into(),
        (None, Rules::Plan(plan)) => plan.policy.on_inconclusive,
        (None, Rules::Flags { .. }) => OnInconclusive::default(),
    };
    let redactor = Redactor::of_process_env(match &rules {
        Rules::Plan(p) => p.policy.redact.clone(),
        Rules::Flags { .. } => Vec::new(),
    });
    let argv = redactor.argv();
    let manifest: String = sources
        .iter()
        .map(|s| format!("{}\0{}\n", s.path, s.sha256))
        .collect();
    let (plan_path, plan_hash) = match &rules {
        Rules::Plan(p) => (p.path.display().to_string(), p.hash.clone()),
        Rules::Flags { words, .. } => (
            "(command line)".to_string(),
            sha256_hex(format!("gate ingest: {words}").as_bytes()),
        ),
    };
    let header = |run_id: &str| Header {
        // An ingest has no suite task: the schema before suites.
        schema: crate::ledger::schema_for(&[]),
        gate_version: env!("CARGO_PKG_VERSION").to_string(),
        run_id: run_id.to_string(),
        plan_path,
        plan_hash,
        fixture_hash: sha256_hex(manifest.as_bytes()),
        argv,
        started_at: now_rfc3339(),
        host: hostname(),
        shard: None,
        stage: None,
        jobs: 1,
        timeout_policy: TimeoutPolicy::Fail,
        on_inconclusive,
        transport_exit_codes: Vec::new(),
        transport_max_retries: 0,
        tasks: tasks.iter().map(|(spec, _)| spec.clone()).collect(),
        sources,
        sandbox: None,
        ci: crate::ledger::CiRun::from_env(),
    };
    let mut session = Session::create_with(&args.ledger, header, &say)?;
    let now = now_rfc3339();
    let mut rows = Vec::new();
    let mut verdicts = Vec::with_capacity(tasks.len());
    for (spec, history) in &tasks {
        verdicts.push(match &paired {
            Some(p) => match p.iter().find(|h| h.test == spec.id) {
                Some(h) => {
                    ingest::pairs::judge_pairs(spec, h, &now, &mut rows).map_err(Error::Usage)?
                }
                None => continue,
            },
            None => judge(spec, history, &now, &mut rows)?,
        });
    }
    session.append_all(rows)?;
    let verdict = Verdict::combine(verdicts);
    let code = crate::exit::for_verdict(Judgement::Verdict(verdict), on_inconclusive);
    finish(output, outputs, &mut session, verdict, code)
}

/// With `--base`: every judged test case must have a `compare:` rule, and is paired with
/// its base runs (those found on one side only are named and left out); without it, no rule
/// may be `compare:`.
fn compare_pairs(
    args: &IngestArgs,
    tasks: &Assigned<'_>,
    histories: &[History],
    base_runs: Vec<ingest::RunFile>,
    say: &dyn Fn(&str),
) -> Result<Option<Vec<ingest::pairs::PairedHistory>>, Error> {
    let compare = tasks.iter().find(|(s, _)| s.compare.is_some());
    if args.base.is_empty() {
        return match compare {
            Some((s, _)) => Err(Error::Usage(format!(
                "test case `{}` has a `compare:` rule, which judges head against base: give the base suite's files with `--base FILE... --`",
                s.id
            ))),
            None => Ok(None),
        };
    }
    if let Some((s, _)) = tasks.iter().find(|(s, _)| s.compare.is_none()) {
        return Err(Error::Usage(format!(
            "`--base`: test case `{}` has a `{}` rule; with `--base` every judged test case needs a `compare:` rule (or give `--odds-ratio R`)",
            s.id,
            s.sampling.rule_name()
        )));
    }
    let (paired, alone) = ingest::pairs::pair(histories, ingest::histories(base_runs));
    if !alone.is_empty() {
        say(&format!(
            "not judged (ran on one side only): {}",
            alone
                .iter()
                .take(10)
                .map(|t| format!("`{t}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if paired.is_empty() {
        return Err(Error::Usage(
            "`--base`: no test case ran on both sides; nothing to compare".into(),
        ));
    }
    Ok(Some(paired))
}

/// The reading options the flags give.
pub(crate) fn options(args: &IngestArgs) -> Result<Options, Error> {
    if !(args.pass_threshold.is_finite() && (0.0..=1.0).contains(&args.pass_threshold)) {
        return Err(Error::Usage(format!(
            "`--pass-threshold {}`: expected a number from 0 to 1",
            args.pass_threshold
        )));
    }
    Ok(Options {
        assume_retries_off: args.assume_retries_off,
        format: args.format.map(|f| match f {
            IngestFormat::Junit => Format::Junit,
            IngestFormat::GoJson => Format::GoJson,
            IngestFormat::Promptfoo => Format::Promptfoo,
            IngestFormat::Deepeval => Format::Deepeval,
            IngestFormat::Inspect => Format::Inspect,
        }),
        scorer: args.scorer.clone(),
        pass_threshold: args.pass_threshold,
        errors_unavailable: args.errors == ErrorPolicy::Unavailable,
        allow_incomplete: args.allow_incomplete,
    })
}

/// `go-json (go test -json)`, `junit (pytest)`: the format and the writer.
pub(crate) fn describe(run: &ingest::RunFile) -> String {
    format!("{} ({})", run.format.as_str(), run.writer.as_str())
}

/// The plan file, or the one rule the flags give.
pub(crate) fn rules(args: &IngestArgs) -> Result<Rules, Error> {
    if let Some(path) = &args.plan {
        let plan = Plan::load(path)?;
        if let Some(t) = plan.tasks.first() {
            return Err(Error::Usage(format!(
                "{}:{}: task `{}` has `run:`; `gate ingest` judges JUnit files, so its tasks select test cases \
                 with `junit: GLOB` (run commands with `gate run`)",
                path.display(),
                t.line,
                t.id
            )));
        }
        return Ok(Rules::Plan(Box::new(plan)));
    }
    let (spec, what) = if let Some(r) = args.odds_ratio {
        (
            SamplingSpec::Compare {
                odds_ratio: Some(r),
                base: None,
                regressed: None,
                alpha: args.design.alpha.map(Rate),
                beta: args.design.beta.map(Rate),
                max_pairs: None,
                rule: None,
            },
            format!("`--odds-ratio {r}`"),
        )
    } else if let Some(single) = &args.design.single {
        let bad = || {
            crate::error::usage!(
                "`--single {single}`: expected N,C (runs, failures tolerated), e.g. `--single 20,3`"
            )
        };
        let (n, c) = single.split_once(',').ok_or_else(bad)?;
        let (n, c) = (
            n.trim().parse().map_err(|_| bad())?,
            c.trim().parse().map_err(|_| bad())?,
        );
        (
            SamplingSpec::Single { n, c },
            format!("`--single {single}`"),
        )
    } else {
        let (Some(healthy), Some(regressed)) = (args.design.healthy, args.design.regressed) else {
            return Err(Error::Usage(
                "give `--plan PLAN`, `--single N,C`, or `--healthy P0 --regressed P1`".into(),
            ));
        };
        (
            SamplingSpec::Design {
                healthy: Rate(healthy),
                regressed: Rate(regressed),
                alpha: args.design.alpha.map(Rate),
                beta: args.design.beta.map(Rate),
                rule: match sampling_kind(args) {
                    DesignRule::Single => Rule::Single,
                    DesignRule::Sequential => Rule::Sequential,
                },
                max_trials: args.design.max_trials,
            },
            "the design flags".to_string(),
        )
    };
    let rule =
        resolve_rule(spec, "every test case").map_err(|m| Error::Usage(format!("{what}: {m}")))?;
    let words = rule
        .designed
        .clone()
        .unwrap_or_else(|| rule.sampling.describe());
    Ok(Rules::Flags { rule, words })
}

/// The one report preflight ([`crate::publish::preflight`]), guarding the ledger this ingest
/// writes (and its lock), the plan and every result file read.
pub(crate) fn preflight(args: &IngestArgs) -> Result<crate::publish::Outputs, Error> {
    let mut guarded = vec![Guarded {
        what: "--ledger",
        path: &args.ledger,
        written: true,
        ledger: true,
    }];
    if let Some(plan) = &args.plan {
        guarded.push(Guarded {
            what: "the plan file",
            path: plan,
            written: false,
            ledger: false,
        });
    }
    guarded.extend(args.results.iter().chain(&args.base).map(|r| Guarded {
        what: "a result file",
        path: r,
        written: false,
        ledger: false,
    }));
    super::preflight(&args.reports, &guarded)
}

/// Test cases with their resolved task, in order of first appearance.
pub(crate) type Assigned<'h> = Vec<(TaskSpec, &'h History)>;

/// Each test case with its rule, in order of first appearance, and the ids no rule covers.
pub(crate) fn assign<'h>(
    rules: &Rules,
    histories: &'h [History],
) -> Result<(Assigned<'h>, Vec<String>), Error> {
    let spec = |h: &History, rule: &ResolvedRule, line: Option<u64>, how: String| TaskSpec {
        id: h.test.clone(),
        line,
        sampling: rule.sampling.clone(),
        rates: rule.rates,
        max_unavailable: rule.max_unavailable,
        run: how,
        check: None,
        timeout_s: None,
        compare: rule.compare.as_deref().map(ingest::pairs::record),
        suite: None,
    };
    let mut tasks = Vec::new();
    let mut unselected = Vec::new();
    match rules {
        Rules::Flags { rule, .. } => {
            for h in histories {
                tasks.push((spec(h, rule, None, format!("junit: {}", h.test)), h));
            }
        }
        Rules::Plan(plan) => {
            let mut used = vec![false; plan.selections.len()];
            for h in histories {
                let hit = plan
                    .selections
                    .iter()
                    .position(|s| s.pattern.matches(&h.test));
                match (hit, &plan.default_rule) {
                    (Some(i), _) => {
                        used[i] = true;
                        let s = &plan.selections[i];
                        let how = format!("junit: {} (task `{}`, `{}`)", h.test, s.id, s.glob);
                        tasks.push((spec(h, &s.rule, Some(s.line), how), h));
                    }
                    (None, Some(rule)) => {
                        let how = format!("junit: {} (top-level `sampling:`)", h.test);
                        tasks.push((spec(h, rule, None, how), h));
                    }
                    (None, None) => unselected.push(h.test.clone()),
                }
            }
            if let Some(i) = used.iter().position(|u| !u) {
                let s = &plan.selections[i];
                let mut known: Vec<String> = histories
                    .iter()
                    .take(10)
                    .map(|h| format!("`{}`", h.test))
                    .collect();
                if histories.len() > 10 {
                    known.push(format!("… {} more", histories.len() - 10));
                }
                return Err(Error::Usage(format!(
                    "{}:{}: task `{}`: `junit: {}` matches no test case in the result files (test cases: {})",
                    plan.path.display(),
                    s.line,
                    s.id,
                    s.glob,
                    known.join(", ")
                )));
            }
        }
    }
    Ok((tasks, unselected))
}

/// Append one task's attempt rows and its decision: first attempts consumed by the sampler in
/// ordinal order, later attempts recorded and never graded, runs past the decision excluded.
fn judge(
    spec: &TaskSpec,
    history: &History,
    started_at: &str,
    rows: &mut Vec<Row>,
) -> Result<Verdict, Error> {
    let mut sampler = OrderedSampler::new(spec.sampling.clone(), spec.max_unavailable, None)
        .map_err(|e| Error::Usage(format!("task `{}`: {e}", spec.id)))?;
    for (i, attempts) in history.trials.iter().enumerate() {
        let ordinal = i as u64 + 1;
        for (j, a) in attempts.iter().enumerate() {
            rows.push(Row::Attempt(a.row(
                &spec.id,
                ordinal,
                j as u32 + 1,
                started_at,
                None,
            )));
        }
        // Attempt 1 only (invariant 1); the sampler excludes what comes after its decision.
        let first = attempts[0].outcome();
        sampler.offer(ordinal, first);
    }
    let (verdict, reason) = match sampler.decision() {
        Some(d) => (d.verdict, d.reason.clone()),
        None => (
            Verdict::Inconclusive,
            format!(
                "no decision after the {} recorded run{} (the rule may need up to {})",
                history.trials.len(),
                if history.trials.len() == 1 { "" } else { "s" },
                spec.sampling.max_graded()
            ),
        ),
    };
    rows.push(Row::Decision(DecisionRow {
        task: spec.id.clone(),
        verdict: Judgement::Verdict(verdict),
        reason,
        counts: sampler.counts(),
        llr: sampler.rule().llr(),
    }));
    Ok(verdict)
}

/// Close the ledger with the footer of the decided `verdict`, then print and write the
/// reports from the rows this process wrote, read back through its own descriptor (as `gate
/// run` does), and return the exit code.
fn finish(
    output: &OutputArgs,
    outputs: &crate::publish::Outputs,
    session: &mut Session,
    verdict: Verdict,
    code: u8,
) -> Result<u8, Error> {
    let to_stdout = outputs.to_stdout();
    session.close(RunStatus::Complete, Judgement::Verdict(verdict), code)?;
    // The reports (and the exit code) come from the rows as written, read back through the
    // session's own descriptor; they must agree with the sampler's decisions.
    let report = own_report(&session.verified()?)?;
    if report.verdict() != Judgement::Verdict(verdict) || report.exit_code() != code {
        return Err(Error::Harness(format!(
            "the ledger's rows recompute to {} (exit {}) where the ingest decided {verdict} (exit {code}); no verdict is published",
            report
                .verdict()
                .verdict()
                .map_or("no verdict", |v| v.as_str()),
            report.exit_code()
        )));
    }
    // A report path swapped while the command ran: say so instead of printing a verdict
    // that is then not published.
    outputs.recheck()?;
    let terminal = |is_tty: bool| {
        crate::output::Output::resolve(&output.into(), is_tty).summary(&report.terminal())
    };
    // A closed stream ends the printing, not the verdict.
    if to_stdout {
        let text = terminal(std::io::IsTerminal::is_terminal(&std::io::stderr()));
        let _ = std::io::stderr().lock().write_all(text.as_bytes());
    } else {
        let text = terminal(std::io::IsTerminal::is_terminal(&std::io::stdout()));
        let _ = std::io::stdout().lock().write_all(text.as_bytes());
    }
    crate::report::emit(&report, outputs)?;
    let line = format!("ledger: {}", session.path().display());
    if !output.quiet {
        let _ = if to_stdout {
            writeln!(std::io::stderr().lock(), "{line}")
        } else {
            writeln!(std::io::stdout().lock(), "{line}")
        };
    }
    Ok(code)
}

/// The report of this ingest's own rows: one that cannot be made is gate's fault (exit 4).
fn own_report(ledger: &Ledger) -> Result<Report, Error> {
    Report::from_ledgers(std::slice::from_ref(ledger), None).map_err(|e| {
        Error::Harness(format!(
            "cannot make a report from this ingest's own ledger ({e}); no verdict is published"
        ))
    })
}

/// `--sampling`, or its deprecated spelling `--rule` (which says so on stderr: in `gate plan`
/// `--rule` chooses the sequential rule, `calibrated|wald`).
fn sampling_kind(args: &IngestArgs) -> DesignRule {
    match args.rule {
        Some(kind) => {
            eprintln!(
                "gate: `gate ingest --rule` is deprecated, spell it `--sampling` (`--rule` is \
                 `calibrated|wald` in `gate plan`)"
            );
            kind
        }
        None => args.design.sampling,
    }
}
