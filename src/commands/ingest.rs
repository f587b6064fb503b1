//! `gate ingest`: judge the result files a test runner or an eval tool wrote, exactly as `gate
//! run` judges the trials it runs. Glue only: the flags become [`Rules`] and
//! [`ingest::Options`]; [`crate::ingest`] reads the files into first-attempt trials per test
//! case, and [`crate::judge`] assigns each its rule, builds the ledger's header and decides
//! every task with the same samplers as `gate run`, runs beyond a decision recorded as
//! excluded. The verdict, the reports and the exit code are then recomputed from the
//! ledger by [`crate::report`], as for `gate run`, so `gate verify` and `gate report` work on
//! the result.

use std::io::Write as _;

use crate::cli::{DesignRule, ErrorPolicy, IngestArgs, OutputArgs};
use crate::error::Error;
use crate::ingest::{self, Options};
use crate::ledger::{RunStatus, now_rfc3339};
use crate::model::{Judgement, OnInconclusive, Verdict};
use crate::plan::schema::{Rate, Rule, SamplingSpec};
use crate::plan::{Plan, resolve_rule};
use crate::publish::Guarded;
use crate::runner::redact::Redactor;
use crate::runner::session::Session;

use crate::judge::{self, Rules};

/// Execute `gate ingest`; returns the exit code.
pub fn execute(args: &IngestArgs, output: &OutputArgs) -> Result<u8, Error> {
    refuse_options_after_dashes(args)?;
    let rules = rules(args)?;
    // A rate below 1% is almost surely a mistyped percentage (`--healthy 0.9%` for 90%): say
    // what was read, from the flags or the plan, as `gate plan`, `check` and `run` do.
    let warnings = match &rules {
        Rules::Plan(p) => p.rate_warnings(),
        Rules::Flags { .. } => {
            crate::units::flag_rate_warnings(args.design.healthy, args.design.regressed)
        }
    };
    for w in warnings {
        eprintln!("{}", crate::untrusted::log_line(&w));
    }
    let outputs = preflight(args)?;
    let say = sayer(output, &outputs);
    let opts = options(args)?;
    // Every string a result file gives (test ids included) is redacted as it is read.
    let redactor = Redactor::of_process_env(match &rules {
        Rules::Plan(p) => p.policy.redact.clone(),
        Rules::Flags { .. } => Vec::new(),
    });
    // With `--base`, the base suite's files come first in the header's list.
    let redact = |s: &str| redactor.apply(s);
    let read = || -> Result<_, ingest::IngestError> {
        let base_runs = ingest::read_runs(&args.base, &opts, &redact)?;
        let runs = ingest::read_runs(&args.results, &opts, &redact)?;
        // Evidence has an identity: one run's file given twice (a path twice, a copy, a link,
        // overlapping globs) would count as two runs; and a test id that two files make of
        // different test cases, or that two test cases become once a secret in it is
        // redacted, would merge two tests.
        ingest::check_distinct(base_runs.iter().chain(&runs))?;
        ingest::check_redacted_ids(base_runs.iter().chain(&runs))?;
        ingest::check_same_ids(base_runs.iter().chain(&runs))?;
        Ok((base_runs, runs))
    };
    // A refusal quotes the file as it was written (test ids, the runner's error text, the
    // file's name): redacted here, the one place, before main prints it (review 47, c03-c05).
    let (base_runs, runs) = read().map_err(|e| e.redact(&redact))?;
    // What was detected: one line when every file is of one kind (twenty runs of a suite),
    // base's files counted with head's.
    let all = || base_runs.iter().chain(&runs);
    let detected: Vec<String> = all().filter(|r| r.detected).map(describe).collect();
    let count = base_runs.len() + runs.len();
    match detected.first() {
        Some(first)
            if count > 1 && detected.len() == count && detected.iter().all(|d| d == first) =>
        {
            let sides = if base_runs.is_empty() {
                String::new()
            } else {
                format!(" ({} base, {} head)", base_runs.len(), runs.len())
            };
            say(&format!(
                "{count} files{sides} read as {first} (detected; `--format` overrides)"
            ));
        }
        _ => {
            for r in all().filter(|r| r.detected) {
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
    judge_runs(args, output, &outputs, &rules, &redactor, base_runs, runs)
}

/// After `--` (which ends `--base`'s list) clap reads every word as a result file, so
/// `gate ingest --base b/*.xml -- h/*.xml --ledger L` would try to read `--ledger` as a
/// file. A "file" that looks like an option and does not exist is refused, naming the
/// option and where it goes.
fn refuse_options_after_dashes(args: &IngestArgs) -> Result<(), Error> {
    let Some(option) = args.results.iter().find(|p| {
        let s = p.to_string_lossy();
        s.len() > 1 && s.starts_with('-') && !p.exists()
    }) else {
        return Ok(());
    };
    let option = option.to_string_lossy();
    let name = option.split('=').next().unwrap_or(&option);
    Err(Error::Usage(format!(
        "`{name}` came after `--`, which ends the options, so it would be read as a result \
         file: put the options before `--` (`gate ingest --base BASE_RESULT... {name} ... -- \
         RESULT...`)"
    )))
}

/// Judge the runs read: write the ledger, then print and emit the reports it recomputes to.
fn judge_runs(
    args: &IngestArgs,
    output: &OutputArgs,
    outputs: &crate::publish::Outputs,
    rules: &Rules,
    redactor: &Redactor,
    base_runs: Vec<ingest::RunFile>,
    runs: Vec<ingest::RunFile>,
) -> Result<u8, Error> {
    let say = sayer(output, outputs);
    let sources = judge::sources(&base_runs, &runs);
    let skipped: u64 = runs.iter().map(|r| r.skipped).sum();
    let histories = ingest::histories(runs);
    judge::check_histories(&histories, sources.len(), skipped)?;
    let base_runs = (!args.base.is_empty()).then_some(base_runs);
    let judge::Tasks { judged, unselected } = judge::tasks(rules, &histories, base_runs, &say)?;
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
        say(&format!(
            "not judged (selected by no task, and the plan sets no top-level `sampling:`): {}",
            judge::named(&unselected)
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
    let header = judge::header(rules, &judged, sources, on_inconclusive, redactor.argv())("");
    judge::check_header_size(&header)?;
    let mut session = Session::create_with(
        &args.ledger,
        move |run_id| crate::ledger::Header {
            run_id: run_id.to_string(),
            ..header
        },
        &say,
    )?;
    let (rows, verdict) = judge::judge_all(&judged, &now_rfc3339())?;
    session.append_all(rows)?;
    let code = crate::exit::for_verdict(Judgement::Verdict(verdict), on_inconclusive);
    finish(output, outputs, &mut session, verdict, code)
}

/// The reading options the flags give.
fn options(args: &IngestArgs) -> Result<Options, Error> {
    if !(args.pass_threshold.is_finite() && (0.0..=1.0).contains(&args.pass_threshold)) {
        return Err(Error::Usage(format!(
            "`--pass-threshold {}`: expected a number from 0 to 1",
            args.pass_threshold
        )));
    }
    Ok(Options {
        assume_retries_off: args.assume_retries_off,
        format: args.format,
        scorer: args.scorer.clone(),
        pass_threshold: args.pass_threshold,
        errors_unavailable: args.errors == ErrorPolicy::Unavailable,
        allow_incomplete: args.allow_incomplete,
    })
}

/// `go-json (go test -json)`, `junit (pytest)`: the format and the writer.
fn describe(run: &ingest::RunFile) -> String {
    format!("{} ({})", run.format.as_str(), run.writer.as_str())
}

/// The plan file, or the one rule the flags give.
fn rules(args: &IngestArgs) -> Result<Rules, Error> {
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
                drop: args.drop.map(Rate),
            },
            format!("`--odds-ratio {r}`"),
        )
    } else if let Some(single) = &args.design.single {
        let (n, c) = super::parse_single(single)?;
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
fn preflight(args: &IngestArgs) -> Result<crate::publish::Outputs, Error> {
    let mut guarded = vec![Guarded::written_ledger(&args.ledger)];
    if let Some(plan) = &args.plan {
        guarded.push(Guarded::read("the plan file", plan, false));
    }
    let results = args.results.iter().chain(&args.base);
    guarded.extend(results.map(|r| Guarded::read("a result file", r, false)));
    super::preflight(&args.reports, &guarded)
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
    session.close(RunStatus::Complete, Judgement::Verdict(verdict), code)?;
    // The reports (and the exit code) come from the rows as written, read back through the
    // session's own descriptor; they must agree with the sampler's decisions.
    let report = judge::own_report(session, verdict, code)?;
    // A report path swapped while the command ran: say so instead of printing a verdict
    // that is then not published.
    outputs.recheck()?;
    super::print_summary(&report, output, outputs);
    crate::report::emit(&report, outputs)?;
    sayer(output, outputs)(&format!("ledger: {}", session.path().display()));
    Ok(code)
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

/// How an ingest says what it found: on stdout, or on stderr when a report goes to stdout
/// (`--json -`); nothing with `--quiet`.
fn sayer(output: &OutputArgs, outputs: &crate::publish::Outputs) -> impl Fn(&str) {
    let (quiet, to_stdout) = (output.quiet, outputs.to_stdout());
    move |text: &str| {
        if quiet {
            return;
        }
        let _ = if to_stdout {
            writeln!(std::io::stderr().lock(), "{text}")
        } else {
            writeln!(std::io::stdout().lock(), "{text}")
        };
    }
}
