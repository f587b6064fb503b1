//! The library half of `gate ingest`, runs read from result files → the ledger it writes:
//! which rule judges each test case ([`assign`]), the header ([`header`], [`check_header_size`])
//! and every task's attempt and decision rows ([`judge_all`]), decided by the samplers of
//! `gate run`. `commands/ingest.rs` turns the flags into [`Rules`] and prints.
//!
//! A module above [`crate::ingest`], not in it: it needs the plan and the report, which
//! import `ingest/` (a module cycle); like `runner/`, it returns [`Error`].

use crate::error::Error;
use crate::ledger::{DecisionRow, Header, Row, SourceFile, TaskSpec, now_rfc3339, sha256_hex};
use crate::model::{Counts, Judgement, OnInconclusive, Outcome, TimeoutPolicy, Verdict};
use crate::pair_sampler::Side;
use crate::plan::{Plan, ResolvedRule};
use crate::report::Report;
use crate::rule::Decision;
use crate::sampler::OrderedSampler;

use crate::ingest::pairing::{self, PairedHistory};
use crate::ingest::{History, RunFile};

/// Refuse, before the ledger is written, a header row longer than a ledger row may be
/// ([`crate::ledger::MAX_ROW_BYTES`]): the header lists every test case, so a suite of some
/// 100,000 test cases with long ids would write a ledger that gate then cannot read back,
/// and the read-back would report it as changed behind gate's back (exit 4).
pub fn check_header_size(header: &crate::ledger::Header) -> Result<(), Error> {
    // The row as written, with a run id of the length a real one has (16 hex digits).
    let row = crate::ledger::Row::Header(Box::new(crate::ledger::Header {
        run_id: "0".repeat(16),
        ..header.clone()
    }));
    let bytes = serde_json::to_vec(&row)
        .map(|v| v.len() as u64)
        .unwrap_or(u64::MAX);
    // Room for the row's sequence number and hash-chain fields.
    if bytes + 256 > crate::ledger::MAX_ROW_BYTES {
        return Err(Error::Usage(format!(
            "the {} test cases read make a ledger header of {} MiB, more than the {} MiB a ledger row may \
             hold (every test case is listed in it); gate would write a ledger it cannot read back. Judge \
             the suite in parts: a plan whose tasks select test cases with `junit:` globs, one ingest per \
             part",
            header.tasks.len(),
            bytes.div_ceil(1 << 20),
            crate::ledger::MAX_ROW_BYTES >> 20
        )));
    }
    Ok(())
}

/// The rules to judge with: a plan file's, or one rule for every test case.
pub enum Rules {
    /// A plan file's `junit:` tasks (and its top-level `sampling:` for the rest).
    Plan(Box<Plan>),
    /// One rule from the command line, and how to say it.
    Flags {
        /// The rule.
        rule: ResolvedRule,
        /// Its description (`--single 20,3`, or the designed plan's words).
        words: String,
    },
}

/// Test cases with their resolved task, in order of first appearance.
pub type Assigned<'h> = Vec<(TaskSpec, &'h History)>;

/// The header's list of files read: the base suite's first, then the head's.
pub fn sources(base_runs: &[RunFile], runs: &[RunFile]) -> Vec<SourceFile> {
    base_runs
        .iter()
        .chain(runs)
        .map(|r| SourceFile {
            path: r.path.display().to_string(),
            sha256: r.sha256.clone(),
            writer: r.writer.as_str().to_string(),
        })
        .collect()
}

/// Refuse test cases that cannot be judged: none at all, or one whose name shows nothing
/// (empty, blanks, invisible characters), which would be a task no reader can tell apart or
/// select.
pub fn check_histories(histories: &[History], files: usize, skipped: u64) -> Result<(), Error> {
    if let Some(h) = histories
        .iter()
        .find(|h| crate::untrusted::is_blank_id(&h.test))
    {
        return Err(Error::Usage(format!(
            "a test case in the result files has no visible name (`{}`: no `name` and no `classname`, or a class name or name of only blanks and invisible characters); gate cannot name its task, so nothing is judged — give every test case a name",
            crate::untrusted::one_line(&h.test)
        )));
    }
    if histories.is_empty() {
        return Err(Error::Usage(format!(
            "the {files} result file{} hold no test case that ran ({skipped} skipped); nothing to judge",
            if files == 1 { "" } else { "s" }
        )));
    }
    Ok(())
}

/// The task `rules` give test case `h`, `None` when no rule covers it, and the index of the
/// plan's selection that covers it.
fn spec_for(rules: &Rules, test: &str) -> Option<(TaskSpec, Option<usize>)> {
    let spec = |rule: &ResolvedRule, line: Option<u64>, how: String| TaskSpec {
        id: test.to_string(),
        line,
        sampling: rule.sampling.clone(),
        rates: rule.rates,
        max_unavailable: rule.max_unavailable,
        run: how,
        check: None,
        timeout_s: None,
        compare: rule.compare.as_deref().map(compare_record).map(Box::new),
        suite: None,
    };
    match rules {
        Rules::Flags { rule, .. } => Some((spec(rule, None, format!("junit: {test}")), None)),
        Rules::Plan(plan) => {
            match (
                plan.selections.iter().position(|s| s.pattern.matches(test)),
                &plan.default_rule,
            ) {
                (Some(i), _) => {
                    let s = &plan.selections[i];
                    let how = format!("junit: {test} (task `{}`, `{}`)", s.id, s.glob);
                    Some((spec(&s.rule, Some(s.line), how), Some(i)))
                }
                (None, Some(rule)) => {
                    let how = format!("junit: {test} (top-level `sampling:`)");
                    Some((spec(rule, None, how), None))
                }
                (None, None) => None,
            }
        }
    }
}

/// Each test case with its rule, in order of first appearance, and the ids no rule covers.
pub fn assign<'h>(
    rules: &Rules,
    histories: &'h [History],
) -> Result<(Assigned<'h>, Vec<String>), Error> {
    let mut tasks = Vec::new();
    let mut unselected = Vec::new();
    let mut used = match rules {
        Rules::Plan(plan) => vec![false; plan.selections.len()],
        Rules::Flags { .. } => Vec::new(),
    };
    for h in histories {
        match spec_for(rules, &h.test) {
            Some((spec, selection)) => {
                if let Some(i) = selection {
                    used[i] = true;
                }
                tasks.push((spec, h));
            }
            None => unselected.push(h.test.clone()),
        }
    }
    if let Rules::Plan(plan) = rules
        && let Some(i) = used.iter().position(|u| !u)
    {
        let s = &plan.selections[i];
        let ids: Vec<String> = histories.iter().map(|h| h.test.clone()).collect();
        return Err(Error::Usage(format!(
            "{}:{}: task `{}`: `junit: {}` matches no test case in the result files (test cases: {})",
            plan.path.display(),
            s.line,
            s.id,
            s.glob,
            named(&ids)
        )));
    }
    Ok((tasks, unselected))
}

/// The first ten of `ids` in backticks, then how many more: a line naming test cases stays
/// one line however large the suite (review 6, a14: the list of cases on one side only
/// named ten and dropped the rest without a word).
pub fn named(ids: &[String]) -> String {
    const SHOWN: usize = 10;
    let mut text = ids
        .iter()
        .take(SHOWN)
        .map(|t| format!("`{t}`"))
        .collect::<Vec<_>>()
        .join(", ");
    if ids.len() > SHOWN {
        text.push_str(&format!(", and {} more", ids.len() - SHOWN));
    }
    text
}

/// What an ingest judges: each test case by its own runs, or with `--base` by its head/base
/// pairs. The ledger header lists exactly these tasks, and [`judge_all`] writes a decision
/// for each, so the ingest's verdict and its ledger's replay are made over the same tasks.
pub enum Judged<'h> {
    /// Each selected test case with its rule and its runs.
    Runs(Assigned<'h>),
    /// With base runs: each compared test case with its rule at the family's share and its
    /// pairs, then the cases only base records (no pairs: INCONCLUSIVE).
    Pairs(Vec<(TaskSpec, PairedHistory)>),
}

impl Judged<'_> {
    /// The tasks, in the header's order.
    pub fn specs(&self) -> Vec<&TaskSpec> {
        match self {
            Self::Runs(t) => t.iter().map(|(s, _)| s).collect(),
            Self::Pairs(t) => t.iter().map(|(s, _)| s).collect(),
        }
    }
}

/// What an ingest judges.
pub struct Tasks<'h> {
    /// Each judged test case with its rule and its runs or pairs.
    pub judged: Judged<'h>,
    /// The test cases no rule covers.
    pub unselected: Vec<String>,
}

/// What an ingest judges: each test case with its rule ([`assign`]), the ids no rule covers,
/// and with base runs the head/base pairs ([`compare_pairs`]); none selected is refused.
pub fn tasks<'h>(
    rules: &Rules,
    histories: &'h [History],
    base_runs: Option<Vec<RunFile>>,
    say: &dyn Fn(&str),
) -> Result<Tasks<'h>, Error> {
    let (tasks, unselected) = assign(rules, histories)?;
    let judged = match base_runs {
        None => {
            if let Some((s, _)) = tasks.iter().find(|(s, _)| s.compare.is_some()) {
                return Err(Error::Usage(format!(
                    "test case `{}` has a `compare:` rule, which judges head against base: give the base suite's files with `--base FILE... --`",
                    s.id
                )));
            }
            if tasks.is_empty() {
                return Err(Error::Usage(
                    "no test case is selected by the plan's tasks, and the plan sets no top-level `sampling:` for the rest"
                        .into(),
                ));
            }
            Judged::Runs(tasks)
        }
        Some(base_runs) => {
            let mut pairs = compare_pairs(rules, tasks, histories, base_runs, say)?;
            let k = pairs.iter().filter(|(_, p)| !p.base_only).count() as u64;
            compare_family(&mut pairs, k, say)?;
            Judged::Pairs(pairs)
        }
    };
    Ok(Tasks { judged, unselected })
}

/// With base runs (`--base`): every judged test case must have a `compare:` rule, and is
/// paired with its base runs. A test case only head records is new on head: named through
/// `say` and not judged (there is nothing to compare it with). One only base records
/// (removed, or skipped in every run, on head) is judged with no pair, so it is
/// INCONCLUSIVE and the gate cannot PASS: a deleted test is evidence missing, not evidence
/// of no regression (review 6, a14).
pub fn compare_pairs(
    rules: &Rules,
    tasks: Assigned<'_>,
    histories: &[History],
    base_runs: Vec<RunFile>,
    say: &dyn Fn(&str),
) -> Result<Vec<(TaskSpec, PairedHistory)>, Error> {
    let (paired, head_only) = pairing::pair(histories, crate::ingest::histories(base_runs));
    let mut by_test: std::collections::HashMap<String, PairedHistory> =
        paired.into_iter().map(|p| (p.test.clone(), p)).collect();
    let mut judged = Vec::with_capacity(tasks.len());
    let mut new_on_head = Vec::new();
    let mut failing_new = Vec::new();
    for (spec, _) in tasks {
        match by_test.remove(&spec.id) {
            Some(p) => judged.push((spec, p)),
            None => {
                // A case only head records that failed there (new and broken, or run on head
                // where base skipped it every time) is no evidence of no regression: it is
                // judged with no pair, INCONCLUSIVE, like a case only base records
                // (review 8, a09). One that passed every head run is new and not compared.
                let failed = histories.iter().any(|h| {
                    h.test == spec.id
                        && h.trials
                            .iter()
                            .any(|t| t.is_empty() || t.iter().any(|a| !a.passed && !a.unavailable))
                });
                if failed {
                    failing_new.push(spec.id.clone());
                    let p = PairedHistory {
                        test: spec.id.clone(),
                        pairs: Vec::new(),
                        unpaired: 0,
                        base_only: true,
                    };
                    judged.push((spec, p));
                } else {
                    new_on_head.push(spec.id);
                }
            }
        }
    }
    // What is left: the cases only base records (and head's unselected ones, not judged).
    let mut removed: Vec<PairedHistory> = by_test.into_values().filter(|p| p.base_only).collect();
    removed.sort_by(|a, b| a.test.cmp(&b.test));
    let mut removed_ids = Vec::new();
    for p in removed {
        if let Some((spec, _)) = spec_for(rules, &p.test) {
            removed_ids.push(p.test.clone());
            judged.push((spec, p));
        }
    }
    if let Some((s, _)) = judged.iter().find(|(s, _)| s.compare.is_none()) {
        return Err(Error::Usage(format!(
            "`--base`: test case `{}` has a `{}` rule; with `--base` every judged test case needs a `compare:` rule (or give `--odds-ratio R`)",
            s.id,
            s.sampling.rule_name()
        )));
    }
    debug_assert!(
        head_only
            .iter()
            .all(|t| failing_new.contains(t) || !judged.iter().any(|(s, _)| &s.id == t))
    );
    if !new_on_head.is_empty() {
        say(&format!(
            "new on head, not compared (base never ran them): {}",
            named(&new_on_head)
        ));
    }
    if !failing_new.is_empty() {
        say(&format!(
            "on head only and failing there, so INCONCLUSIVE and the gate cannot PASS (base never ran them: nothing shows head is not worse): {}",
            named(&failing_new)
        ));
    }
    if !removed_ids.is_empty() {
        say(&format!(
            "on base only, so INCONCLUSIVE and the gate cannot PASS (removed or skipped on head: evidence missing, not evidence of no regression): {}",
            named(&removed_ids)
        ));
    }
    // Pairs with one side only: said, as the decisions read them (review 9, a04/a19).
    let one_sided: Vec<(&str, u64, String)> = judged
        .iter()
        .filter_map(|(s, p)| {
            p.first_one_sided()
                .map(|(k, pair)| (s.id.as_str(), k, pair.why_one_sided()))
        })
        .collect();
    if let Some((first, k, why)) = one_sided.first() {
        let ids: Vec<String> = one_sided.iter().map(|(id, _, _)| id.to_string()).collect();
        say(&format!(
            "runs with no partner on the other side, read as a gap (a verdict reached before it stands, none is reached after it): {} (`{first}`, pair #{k}: {why})",
            named(&ids)
        ));
    }
    if judged.iter().all(|(_, p)| p.base_only) {
        return Err(Error::Usage(
            "`--base`: no test case ran on both sides; nothing to compare".into(),
        ));
    }
    Ok(judged)
}

/// The test cases compared with `--base` as one family, as a `compare:` suite's cases in
/// `gate run` ([`crate::plan::family::design_compare`]): each of the `k` cases that ran on
/// both sides is judged by its compare rule designed again at Šidák's share of its alpha
/// over the `k`, so P(some case of a head as good as base is not PASS) stays within alpha
/// for independent cases. The redesigned rule is what the header records, so the replay
/// judges with it. One case keeps its rule; the share is said through `say`.
fn compare_family(
    tasks: &mut [(TaskSpec, PairedHistory)],
    k: u64,
    say: &dyn Fn(&str),
) -> Result<(), Error> {
    if k < 2 {
        return Ok(());
    }
    let mut alphas = Vec::new();
    for (spec, _) in tasks.iter_mut() {
        let Some(c) = spec.compare.as_mut() else {
            continue;
        };
        let rule = crate::plan::compare_rule::CompareRule {
            odds_ratio: c.odds_ratio,
            alpha: c.alpha,
            beta: c.beta,
            max_pairs: c.max_pairs,
            rates: c.rates,
            drop: c.drop.unwrap_or(crate::stats::loss_route::DEFAULT_DROP),
            loss_route: c.loss_route,
        };
        let family = crate::plan::family::design_compare(&rule, &spec.sampling, k)
            .map_err(|e| Error::Usage(format!("`--base`: test case `{}`: {e}", spec.id)))?;
        if let Some(p) = family.pairs {
            c.max_pairs = p.max_pairs;
            c.loss_route = p.loss_route;
        }
        spec.sampling = family.sampling;
        if !alphas.contains(&c.alpha) {
            alphas.push(c.alpha);
        }
    }
    for alpha in alphas {
        say(&format!(
            "family: the {k} test cases compared are one family: each case's compare rule is designed again at Šidák's share 1 − (1 − {alpha})^(1/{k}) = {:.6} of alpha {alpha} (beta unchanged), so P(a head as good as base is not PASS somewhere) ≤ {alpha} for independent cases",
            crate::plan::family::sidak(alpha, k)
        ));
    }
    Ok(())
}

/// The ledger header of an ingest (its run id left to the session that writes it): the plan
/// (or the command line's rule), the files read with their SHA-256, and the tasks.
pub fn header(
    rules: &Rules,
    tasks: &Judged<'_>,
    sources: Vec<SourceFile>,
    on_inconclusive: OnInconclusive,
    argv: Vec<String>,
) -> impl FnOnce(&str) -> Header {
    let manifest: String = sources
        .iter()
        .map(|s| format!("{}\0{}\n", s.path, s.sha256))
        .collect();
    let (plan_path, plan_hash) = match rules {
        Rules::Plan(p) => (p.path.display().to_string(), p.hash.clone()),
        Rules::Flags { words, .. } => (
            "(command line)".to_string(),
            sha256_hex(format!("gate ingest: {words}").as_bytes()),
        ),
    };
    let tasks: Vec<TaskSpec> = tasks.specs().into_iter().cloned().collect();
    move |run_id: &str| Header {
        // An ingest has no suite task: the schema before suites.
        schema: crate::ledger::schema_for(&[]),
        gate_version: env!("CARGO_PKG_VERSION").to_string(),
        run_id: run_id.to_string(),
        plan_path,
        plan_hash,
        fixture_hash: sha256_hex(manifest.as_bytes()),
        programs: Default::default(),
        argv,
        started_at: now_rfc3339(),
        host: crate::ledger::hostname(),
        shard: None,
        stage: None,
        after: Vec::new(),
        jobs: 1,
        timeout_policy: TimeoutPolicy::Fail,
        on_inconclusive,
        transport_exit_codes: Vec::new(),
        transport_max_retries: 0,
        tasks,
        sources,
        sandbox: None,
        ci: crate::ledger::CiRun::from_env(),
    }
}

/// Every task's attempt and decision rows, and the verdict they combine to: each task by its
/// first attempts ([`judge`]), or by its head/base pairs ([`judge_pairs`]). Every task the
/// header lists gets its decision here.
pub fn judge_all(tasks: &Judged<'_>, started_at: &str) -> Result<(Vec<Row>, Verdict), Error> {
    let mut rows = Vec::new();
    let verdicts: Result<Vec<Verdict>, String> = match tasks {
        Judged::Runs(t) => t
            .iter()
            .map(|(spec, history)| judge(spec, history, started_at, &mut rows))
            .collect(),
        Judged::Pairs(t) => t
            .iter()
            .map(|(spec, history)| judge_pairs(spec, history, started_at, &mut rows))
            .collect(),
    };
    Ok((rows, Verdict::combine(verdicts.map_err(Error::Usage)?)))
}

/// Append one task's attempt rows and its decision: first attempts consumed by the sampler in
/// ordinal order, later attempts recorded and never graded, runs past the decision excluded.
pub fn judge(
    spec: &TaskSpec,
    history: &History,
    started_at: &str,
    rows: &mut Vec<Row>,
) -> Result<Verdict, String> {
    let mut sampler = OrderedSampler::new(spec.sampling.clone(), spec.max_unavailable, None)
        .map_err(|e| format!("task `{}`: {e}", spec.id))?;
    for (i, attempts) in history.trials.iter().enumerate() {
        let ordinal = i as u64 + 1;
        push_attempts(rows, &spec.id, ordinal, attempts, started_at, None);
        // Attempt 1 only (invariant 1); the sampler excludes what comes after its decision.
        let first = attempts[0].outcome();
        sampler.offer(ordinal, first);
    }
    let (verdict, row) = decision_row(
        &spec.id,
        sampler.decision(),
        (history.trials.len(), "run", spec.sampling.max_graded()),
        sampler.counts(),
        sampler.rule().llr(),
    );
    rows.push(row);
    Ok(verdict)
}

/// Append one compare task's attempt rows (both sides of every pair, side recorded) and its
/// decision: first attempts consumed by the pair sampler in pair order, pairs past the
/// decision excluded. A pair with one side only (base had no observation there, or one side
/// has more runs or repeats: [`crate::ingest::pairing::Pair`]) has its side's rows written and
/// is a gap, read as the replay reads a pair with a side never recorded: nothing after it is
/// consumed, so a verdict reached before it stands and none is reached after it (review 9,
/// a04/a19/a21: head's failure there was dropped from the verdict and from the ledger).
pub fn judge_pairs(
    spec: &TaskSpec,
    history: &PairedHistory,
    started_at: &str,
    rows: &mut Vec<Row>,
) -> Result<Verdict, String> {
    let max_pairs = spec.compare.as_ref().map_or(0, |c| c.max_pairs);
    let mut sampler = spec
        .pair_sampler()
        .map_err(|e| format!("task `{}`: {e}", spec.id))?;
    for (i, p) in history.pairs.iter().enumerate() {
        let pair = i as u64 + 1;
        // In the replay's order (`report/replay/pairs.rs`), so both decide alike.
        sampler.gap_before(pair);
        for (side, attempts) in [(Side::Head, &p.head), (Side::Base, &p.base)] {
            let Some(attempts) = attempts else { continue };
            push_attempts(rows, &spec.id, pair, attempts, started_at, Some(side));
            // Attempt 1 only (invariant 1).
            // A declared fault on either side voids the pair (it is replaced, within the budget).
            let first = attempts
                .first()
                .map_or(Outcome::Fail, crate::ingest::Attempt::outcome);
            sampler.offer(pair, side, first);
        }
        if !p.complete() {
            sampler.gap_before(pair.saturating_add(1));
        }
    }
    let (verdict, mut row) = decision_row(
        &spec.id,
        sampler.decision(),
        (history.pairs.len(), "pair", max_pairs),
        sampler.counts(),
        sampler.rule().llr(),
    );
    if let Row::Decision(d) = &mut row {
        if history.base_only {
            // As the replay of a compare task with no pair says it.
            d.reason = crate::pair_sampler::NO_PAIR_REASON.to_string();
        } else if sampler.decision().is_none()
            && let Some((k, p)) = history.first_one_sided()
        {
            d.reason = format!(
                "no decision after {} graded pair{}: pair #{k} has one side only ({}); pairs are read in order, so none after it is graded, and a run without its partner is evidence missing, not evidence of no regression",
                sampler.pair_counts().total,
                if sampler.pair_counts().total == 1 {
                    ""
                } else {
                    "s"
                },
                p.why_one_sided()
            );
        }
    }
    rows.push(row);
    Ok(verdict)
}

/// The attempt rows of one trial (or one side of a pair), attempt 1 first.
fn push_attempts(
    rows: &mut Vec<Row>,
    task: &str,
    trial: u64,
    attempts: &[crate::ingest::Attempt],
    started_at: &str,
    side: Option<Side>,
) {
    for (j, a) in attempts.iter().enumerate() {
        rows.push(Row::Attempt(
            a.row(task, trial, j as u32 + 1, started_at, side).into(),
        ));
    }
}

/// A task's decision row: the sampler's decision, or INCONCLUSIVE when the recorded runs (or
/// pairs: `recorded` is their number, what they are, and the most the rule may need) ended
/// before it decided.
pub(crate) fn decision_row(
    task: &str,
    decision: Option<&Decision>,
    recorded: (usize, &str, u64),
    counts: Counts,
    llr: Option<f64>,
) -> (Verdict, Row) {
    let (verdict, reason) = match decision {
        Some(d) => (d.verdict, d.reason.clone()),
        None => {
            let (n, what, most) = recorded;
            (
                Verdict::Inconclusive,
                format!(
                    "no decision after the {n} recorded {what}{} (the rule may need up to {most})",
                    if n == 1 { "" } else { "s" },
                ),
            )
        }
    };
    let row = Row::Decision(Box::new(DecisionRow {
        task: task.to_string(),
        verdict: Judgement::Verdict(verdict),
        reason,
        counts,
        llr,
    }));
    (verdict, row)
}

/// The report of an ingest's own rows, which must agree with what its samplers decided
/// (`verdict`, exit `code`): one that cannot be made, or disagrees, is gate's fault (exit 4).
pub fn own_report(
    session: &mut crate::runner::session::Session,
    verdict: Verdict,
    code: u8,
) -> Result<Report, Error> {
    let report = session.own_report("ingest")?;
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
    Ok(report)
}

/// The ledger header's record of a compare rule judging result files: no order (the runs
/// were made elsewhere) and no base command.
fn compare_record(
    rule: &crate::plan::compare_rule::CompareRule,
) -> crate::pair_sampler::CompareRecord {
    crate::pair_sampler::CompareRecord {
        odds_ratio: rule.odds_ratio,
        alpha: rule.alpha,
        beta: rule.beta,
        max_pairs: rule.max_pairs,
        rates: rule.rates,
        order_seed: 0,
        base_run: "junit: the `--base` result files".to_string(),
        base_check: None,
        base_cwd: None,
        drop: Some(rule.drop),
        loss_route: rule.loss_route,
    }
}
