//! `gate run`: plan files, the runner, the ledger and the verdict, pinned with deterministic
//! tasks whose outcome is decided from `GATE_TRIAL`.

use std::time::{Duration, Instant};

use gate::ledger::{Row, RunStatus};
use gate::model::{Fault, Judgement, Outcome, Verdict};
use predicates::prelude::*;

use crate::common::*;

/// A single plan fails at the (c+1)-th failure in ordinal order, and stops there.
#[test]
fn single_plan_exact_counts_and_fail_at_c_plus_one() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 10, c: 2}}
tasks:
  - id: t
    run: 'case $GATE_TRIAL in 2|5|9) exit 1;; esac'
"#,
    );
    f.run(&[]).code(1).stdout(predicate::str::contains("FAIL"));
    let l = f.ledger();
    let d = decision(&l, "t");
    assert_eq!(d.verdict, Judgement::Verdict(Verdict::Fail));
    assert_eq!((d.counts.run, d.counts.passed, d.counts.failed), (9, 6, 3));
    let trials: Vec<u64> = attempts(&l).iter().map(|a| a.trial).collect();
    assert_eq!(
        trials,
        (1..=9).collect::<Vec<_>>(),
        "curtailed at trial 9, never ran 10"
    );
    assert!(is_footer(&l));
}

/// Curtailment on the pass side: n - c passes settle it.
#[test]
fn single_plan_curtails_on_passes() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 10, c: 2}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&[]).code(0).stdout(predicate::str::contains("PASS"));
    let l = f.ledger();
    let d = decision(&l, "t");
    assert_eq!(d.verdict, Judgement::Verdict(Verdict::Pass));
    assert_eq!((d.counts.run, d.counts.passed, d.counts.failed), (8, 8, 0));
    assert_eq!(attempts(&l).len(), 8);
}

/// 9 straight passes take the SPRT LLR below ln(beta/(1-alpha)) for 0.9 vs 0.7:
/// 9 ln(7/9) = -2.262 <= ln(0.1/0.95) = -2.251, while 8 ln(7/9) = -2.011 is not.
#[test]
fn sequential_plan_passes_at_the_bound() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, max_trials: 40, rule: wald}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&[]).code(0);
    let l = f.ledger();
    let d = decision(&l, "t");
    assert_eq!(d.verdict, Judgement::Verdict(Verdict::Pass));
    assert_eq!(d.counts.run, 9);
    assert!(d.llr.unwrap() < -2.2513);
}

/// A `sequential:` block runs the calibrated rule by default: the ledger header records its
/// lattice, the run stops where that lattice says, and the replay agrees.
#[test]
fn calibrated_sequential_rule_is_the_default_and_is_recorded() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, max_trials: 40}\ntasks:\n  - id: t\n    run: 'test $GATE_TRIAL -ne 2'\n",
    );
    f.run(&[]).code(0);
    let l = f.ledger();
    let design = gate::stats::calibrated::design_calibrated(0.9, 0.7, 0.05, 0.1, Some(40)).unwrap();
    let spec = &l.header().tasks[0];
    match &spec.sampling {
        gate::model::Sampling::Sequential {
            rule: gate::model::SequentialRule::Calibrated { lattice },
            ..
        } => assert_eq!(*lattice, design.boundaries),
        other => panic!("not a calibrated rule: {other:?}"),
    }
    // One failure (trial 2): the first t at which 1 failure passes.
    let first_pass = design
        .boundaries
        .rows()
        .iter()
        .find(|r| r.pass_max_failures.is_some_and(|a| a >= 1))
        .unwrap()
        .trials;
    let d = decision(&l, "t");
    assert_eq!(d.verdict, Judgement::Verdict(Verdict::Pass));
    assert_eq!(d.counts.run, first_pass);
    gate().arg("verify").arg(f.ledger_path()).assert().code(0);
}

/// A sequential plan that spends max_trials without a bound is INCONCLUSIVE: exit 3, or 0
/// under `on_inconclusive: pass`.
#[test]
fn sequential_truncation_is_inconclusive() {
    // Alternating pass/fail keeps the LLR between the bounds.
    let yaml = "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, max_trials: 9, rule: wald}\ntasks:\n  - id: t\n    run: 'test $((GATE_TRIAL % 4)) -ne 0'\n";
    let f = Fixture::new(yaml);
    f.run(&[])
        .code(3)
        .stdout(predicate::str::contains("INCONCLUSIVE"));
    assert_eq!(
        decision(&f.ledger(), "t").verdict,
        Judgement::Verdict(Verdict::Inconclusive)
    );
    f.run(&["--on-inconclusive", "pass"]).code(0);
}

/// Fast failures and slow passes: with 8 jobs the failures finish first, yet the verdict
/// and the counts equal the serial run's, because outcomes are consumed in ordinal order.
#[test]
fn jobs_1_and_8_agree_when_failures_are_fast() {
    let yaml = r#"version: 1
sampling:
  sequential: {healthy: 0.9, regressed: 0.6, alpha: 0.05, beta: 0.1, max_trials: 30}
tasks:
  - id: t
    run: 'if [ $((GATE_TRIAL % 4)) -eq 0 ]; then exit 1; fi; sleep 0.2'
"#;
    let serial = Fixture::new(yaml);
    serial.run(&["--jobs", "1"]);
    let parallel = Fixture::new(yaml);
    parallel.run(&["--jobs", "8"]);
    let (a, b) = (serial.ledger(), parallel.ledger());
    let (da, db) = (decision(&a, "t"), decision(&b, "t"));
    assert_eq!(da.verdict, db.verdict);
    assert_eq!(
        (da.counts.run, da.counts.passed, da.counts.failed),
        (db.counts.run, db.counts.passed, db.counts.failed)
    );
    assert_eq!(da.reason, db.reason);
    for f in [&serial, &parallel] {
        gate().arg("verify").arg(f.ledger_path()).assert().code(0);
    }
    // Every trial of the parallel run beyond the decision point (no unavailable trials here,
    // so the decision fell on ordinal `run`) is reported as cancelled or excluded, and none
    // of them was counted.
    let consumed = db.counts.run;
    let beyond = attempts(&b).iter().filter(|r| r.trial > consumed).count() as u64;
    assert_eq!(db.counts.cancelled + db.counts.excluded, beyond);
}

/// A timeout kills the whole process group: the grandchild `sleep` does not survive.
#[test]
fn timeout_leaves_no_grandchild() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 1, c: 0}}
tasks:
  - id: hang
    run: 'sleep 30 & echo $! > work/grandchild.pid; wait'
    timeout: 300ms
"#,
    );
    std::fs::create_dir(f.path("work")).unwrap();
    let start = Instant::now();
    f.run(&[]).code(1);
    assert!(start.elapsed() < Duration::from_secs(20));
    let row = &attempts(&f.ledger())[0];
    assert_eq!(row.fault, Some(Fault::Timeout));
    assert_eq!(row.outcome, Outcome::Fail);
    let pid: i32 = read(&f.path("work/grandchild.pid")).trim().parse().unwrap();
    // Give the kernel a moment to reap, then the pid must be gone (or a zombie of init).
    // `$!` is the grandchild's pid in the trial's PID namespace, where there is one: it is
    // looked up on the host by that pid and its working folder.
    std::thread::sleep(Duration::from_millis(200));
    let alive = live_trial_processes(f.dir.path(), &[pid]);
    assert!(
        alive.is_empty(),
        "grandchild {pid} survived the timeout: {alive:?}"
    );
}

/// Under `timeout: unavailable` a timeout is not a failure; a replacement trial is drawn.
#[test]
fn timeout_unavailable_draws_a_replacement() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 3, c: 0}}
tasks:
  - id: t
    run: 'if [ "$GATE_TRIAL" = 2 ]; then sleep 5; fi'
    timeout: 300ms
policy: {timeout: unavailable, max_unavailable: 1}
"#,
    );
    f.run(&[]).code(0);
    let l = f.ledger();
    let d = decision(&l, "t");
    assert_eq!((d.counts.passed, d.counts.unavailable), (3, 1));
    let trials: Vec<u64> = attempts(&l).iter().map(|a| a.trial).collect();
    assert_eq!(trials, vec![1, 2, 3, 4]);
}

/// A transport fault on attempt 1 makes the trial unavailable; the retry that then passes is
/// recorded but never promoted to the grade, and a replacement trial is drawn.
#[test]
fn transport_fault_is_never_promoted() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 3, c: 0}}
tasks:
  - id: t
    run: 'if [ "$GATE_TRIAL" = 1 ] && [ "$GATE_ATTEMPT" = 1 ]; then exit 75; fi'
policy:
  max_unavailable: 1
  transport: {exit_codes: [75], max_retries: 2, backoff: {min: 10ms, max: 20ms}}
"#,
    );
    f.run(&[]).code(0);
    let l = f.ledger();
    let rows = attempts(&l);
    let t1: Vec<_> = rows.iter().filter(|r| r.trial == 1).collect();
    assert_eq!(t1.len(), 2);
    assert_eq!(
        (t1[0].fault, t1[0].outcome, t1[0].graded),
        (Some(Fault::Transport), Outcome::Unavailable, false)
    );
    assert_eq!(
        (t1[1].attempt, t1[1].outcome, t1[1].graded),
        (2, Outcome::Pass, false)
    );
    let d = decision(&l, "t");
    assert_eq!(
        (d.counts.passed, d.counts.failed, d.counts.unavailable),
        (3, 0, 1)
    );
    assert!(
        rows.iter().any(|r| r.trial == 4 && r.graded),
        "replacement trial 4 drawn"
    );
}

/// A task can declare a transport fault in its result file too.
#[test]
fn result_file_transport_fault_and_pass_false() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 4, c: 3}}
tasks:
  - id: t
    run: |
      case $GATE_TRIAL in
        1) echo '{"fault": "transport"}' > "$GATE_RESULT";;
        2) echo '{"pass": false, "note": "wrong answer"}' > "$GATE_RESULT";;
        *) echo '{"pass": true, "score": 0.9, "cost": 0.01}' > "$GATE_RESULT";;
      esac
policy: {max_unavailable: 2}
"#,
    );
    f.run(&[]).code(0);
    let rows = attempts(&f.ledger());
    assert_eq!(rows[0].outcome, Outcome::Unavailable);
    assert_eq!(rows[1].outcome, Outcome::Fail);
    assert_eq!(
        rows[1].detail.result.as_ref().unwrap().note.as_deref(),
        Some("wrong answer")
    );
    assert_eq!(rows[2].detail.result.as_ref().unwrap().score, Some(0.9));
}

/// More unavailable trials than the budget: INCONCLUSIVE, never PASS.
#[test]
fn unavailable_budget_exhausted_is_inconclusive() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'exit 75'\npolicy: {max_unavailable: 2, transport: {exit_codes: [75]}}\n",
    );
    f.run(&[]).code(3);
    let l = f.ledger();
    let d = decision(&l, "t");
    assert_eq!(d.verdict, Judgement::Verdict(Verdict::Inconclusive));
    assert_eq!(d.counts.unavailable, 3);
    assert!(d.reason.contains("budget"));
}

/// `check` reads the state back: a run that claims success without doing it fails.
#[test]
fn check_catches_claimed_success() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 4, c: 1}}
tasks:
  - id: t
    run: 'echo "Done!"; rm -f state; if [ "$GATE_TRIAL" != 2 ]; then touch state; fi'
    check: 'test -f state || { echo "no booking" >&2; exit 1; }'
"#,
    );
    f.run(&[]).code(0);
    let rows = attempts(&f.ledger());
    assert_eq!(rows[1].outcome, Outcome::Fail);
    assert_eq!(rows[1].check_exit, Some(1));
    assert_eq!(rows[1].detail.stdout_tail, "Done!");
    // The check's output is kept in the attempt's log, apart from the run's.
    let log = read(std::path::Path::new(rows[1].detail.log.as_deref().unwrap()));
    assert!(
        log.contains("===== stdout =====\nDone!\n===== check stderr =====\nno booking\n"),
        "{log}"
    );
    assert_eq!(rows[0].outcome, Outcome::Pass);
}

/// Exit 127 (command not found) is a harness error: exit 4, no verdict published.
#[test]
fn missing_command_is_a_harness_error() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'no-such-command-xyz'\n",
    );
    f.run(&[]).code(4);
    let l = f.ledger();
    assert_eq!(decision(&l, "t").verdict, Judgement::HarnessError);
    match &l.records.last().unwrap().row {
        Row::Footer(ft) => assert_eq!(
            (ft.status, ft.verdict),
            (RunStatus::HarnessError, Judgement::HarnessError)
        ),
        other => panic!("expected footer, got {other:?}"),
    }
}

/// A `check` that cannot run is a harness error too, not an agent failure. (Its program
/// lies outside the task's folder: one missing at load in a folder the trials write is
/// theirs to create, and refused when the plan is loaded, review 17, e23.)
#[test]
fn missing_check_is_a_harness_error() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n    check: ['/nonexistent-gate/no-such-check']\n",
    );
    f.run(&[])
        .code(4)
        .stderr(predicate::str::contains(
            "HARNESS ERROR (check: cannot run `/nonexistent-gate/no-such-check`: command not found)",
        ))
        .stdout(predicate::str::contains(
            "gate  HARNESS ERROR (exit 4: no verdict is published)",
        ));
}

/// Several tasks: the gate FAILs if any task FAILs.
#[test]
fn gate_verdict_combines_tasks() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: good\n    run: 'true'\n  - id: bad\n    run: 'false'\n",
    );
    f.run(&[]).code(1);
    let l = f.ledger();
    assert_eq!(
        decision(&l, "good").verdict,
        Judgement::Verdict(Verdict::Pass)
    );
    assert_eq!(
        decision(&l, "bad").verdict,
        Judgement::Verdict(Verdict::Fail)
    );
    f.run(&["--task", "good"]).code(0);
    f.run(&["--task", "nope"])
        .code(2)
        .stderr(predicate::str::contains("no such task"));
}

/// Secrets from the environment and from `policy.redact` never reach the ledger or logs.
#[test]
fn redaction_of_env_secrets_and_patterns() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 1, c: 0}}
tasks:
  - id: t
    run: 'echo "token=$MY_API_TOKEN acct-12345 pw=$DB_PASSWORD"; echo "$MY_API_TOKEN" >&2'
    env: {DB_PASSWORD: "correct-horse"}
policy:
  redact: ['acct-\d+']
"#,
    );
    f.command(&[])
        .env("MY_API_TOKEN", "tok-very-secret-42")
        .assert()
        .code(0);
    let ledger = read(&f.ledger_path());
    assert!(ledger.contains("token=*** *** pw=***"), "{ledger}");
    let mut all = ledger.clone();
    for e in walk(&f.path("out")) {
        all.push_str(&read(&e));
    }
    for secret in ["tok-very-secret-42", "acct-12345", "correct-horse"] {
        assert!(!all.contains(secret), "`{secret}` leaked");
    }
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                out.extend(walk(&p));
            } else {
                out.push(p);
            }
        }
    }
    out
}

/// Every row carries the SHA-256 of the previous line: the chain is intact.
#[test]
fn ledger_hash_chain_is_intact() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'test $GATE_TRIAL -ne 3'\n",
    );
    f.run(&["--jobs", "3"]).code(0);
    let l = f.ledger();
    assert_eq!(l.first_chain_break(), None);
    assert!(matches!(l.records[0].row, Row::Header(_)));
    assert!(l.torn_tail.is_none());
}

/// Ctrl-C: in-flight trials are cancelled and recorded, the ledger is closed with an
/// INCONCLUSIVE footer and exit 130; `--resume` then completes it.
#[test]
fn ctrl_c_closes_the_ledger_and_resume_completes_it() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 12, c: 0}}\ntasks:\n  - id: slow\n    run: 'sleep 0.3'\npolicy: {jobs: 2}\n",
    );
    assert_eq!(
        run_and_interrupt(&f, Duration::from_millis(1000)),
        Some(130)
    );
    let l = f.ledger();
    match &l.records.last().unwrap().row {
        Row::Footer(ft) => {
            assert_eq!(ft.status, RunStatus::Interrupted);
            assert_eq!(ft.verdict, Judgement::Verdict(Verdict::Inconclusive));
        }
        other => panic!("expected footer, got {other:?}"),
    }
    let rows = attempts(&l);
    assert!(
        rows.iter().any(|r| r.outcome == Outcome::Cancelled),
        "in-flight trials recorded as cancelled"
    );
    let done_before = rows.iter().filter(|r| r.graded).count();
    assert!(done_before < 12);

    f.run(&["--resume"]).code(0);
    let l = f.ledger();
    assert_eq!(l.first_chain_break(), None);
    assert!(l.records.iter().any(|r| matches!(r.row, Row::Resume(_))));
    let d = decision(&l, "slow");
    assert_eq!(
        (d.verdict, d.counts.passed),
        (Judgement::Verdict(Verdict::Pass), 12)
    );
    // Finished trials were kept, not re-run.
    let graded: Vec<u64> = attempts(&l)
        .iter()
        .filter(|r| r.graded)
        .map(|r| r.trial)
        .collect();
    let mut dedup = graded.clone();
    dedup.dedup();
    assert_eq!(graded, dedup);
    // The resumed ledger passes `gate verify`: chain, terminal rows, decisions recompute.
    gate().arg("verify").arg(f.ledger_path()).assert().code(0);
    // A complete ledger cannot be resumed; a changed plan is refused.
    f.run(&["--resume"])
        .code(2)
        .stderr(predicate::str::contains("complete run"));
}

#[test]
fn resume_refuses_a_changed_plan() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&[]).code(0);
    std::fs::write(
        f.plan(),
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    )
    .unwrap();
    f.run(&["--resume"])
        .code(2)
        .stderr(predicate::str::contains("changed since the ledger"));
}

/// The same plan can resolve to another rule under another gate (a better design search):
/// a ledger whose header records a rule this gate would not design is not resumed, since its
/// remaining trials would be judged by a rule that `gate report` does not replay.
#[test]
fn resume_refuses_a_ledger_whose_recorded_rule_this_gate_does_not_design() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 4, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&[]).code(0);
    // As if another gate had resolved the same plan to (5, 1) and been killed before its
    // footer: rewrite the header, drop the footer, reseal the hash chain.
    let text = std::fs::read_to_string(f.ledger_path()).unwrap();
    let mut rows: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.pop().unwrap()["kind"], "footer");
    rows[0]["tasks"][0]["sampling"] = serde_json::json!({"single": {"n": 5, "c": 1}});
    let mut prev = gate::ledger::GENESIS.to_string();
    let mut out = String::new();
    for row in &mut rows {
        row["prev"] = serde_json::Value::String(prev);
        let line = serde_json::to_string(row).unwrap();
        prev = gate::ledger::sha256_hex(line.as_bytes());
        out.push_str(&line);
        out.push('\n');
    }
    std::fs::write(f.ledger_path(), out).unwrap();
    assert_eq!(f.ledger().first_chain_break(), None);
    f.run(&["--resume"])
        .code(2)
        .stderr(predicate::str::contains(
            "records a sampling rule for task `t` other than the one this gate",
        ));
}

/// Typos and impossible plans: a clear message naming file:line:col, exit 2.
#[test]
fn bad_plans_are_rejected_with_line_and_column() {
    let cases: &[(&str, &str)] = &[
        (
            "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n    retires: 2\n",
            "plan.yaml:6:5: unknown field `retires`",
        ),
        (
            "version: 1\nsampling: {single: {n: 5, c: 5}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "plan.yaml:2:",
        ),
        (
            "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n  - id: t\n    run: 'true'\n",
            "plan.yaml:6:9: duplicate task id `t`",
        ),
        (
            "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: '  '\n",
            "plan.yaml:5:10: task `t`: `run` is empty",
        ),
        (
            "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n    timeout: 0s\n",
            "plan.yaml:6:14: task `t`: `timeout` must be greater than zero",
        ),
        (
            "version: 1\nsampling:\n  sequential: {healthy: 0.7, regressed: 0.9, alpha: 0.05, beta: 0.1}\ntasks:\n  - id: t\n    run: 'true'\n",
            "must be greater than `regressed`",
        ),
        (
            "version: 1\nsampling:\n  design: {healthy: 1.5, regressed: 0.9, rule: single}\ntasks:\n  - id: t\n    run: 'true'\n",
            "`healthy` must be strictly between 0 and 1",
        ),
        (
            "version: 2\ntasks: []\n",
            "plan.yaml:1:10: unsupported plan `version: 2`",
        ),
        (
            "version: 1\nversion: 1\ntasks: []\n",
            "plan.yaml:2:1: duplicate mapping key",
        ),
        (
            "version: 1\ntasks:\n  - id: t\n    run: 'true'\n",
            "has no `sampling`",
        ),
        (
            "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n    timeout: soon\n",
            "invalid duration `soon`",
        ),
        (
            "version: 1\nsampling: {singel: {n: 5, c: 1}}\ntasks: []\n",
            "unknown variant `singel`",
        ),
    ];
    for (yaml, expected) in cases {
        let f = Fixture::new(yaml);
        f.run(&[])
            .code(2)
            .stderr(predicate::str::contains(*expected));
        assert!(!f.ledger_path().exists(), "no ledger for an invalid plan");
    }
    let f = Fixture::new("version: 1\n");
    let mut cmd = gate();
    cmd.current_dir(f.dir.path())
        .args(["run", "missing.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "missing.yaml: cannot read plan file",
        ));
}

/// `design:` is designed at load time exactly as `gate plan` would, and printed.
#[test]
fn design_rule_is_resolved_and_printed() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 0.9, regressed: 0.7, rule: single}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&[])
        .code(0)
        .stderr(predicate::str::contains("designed single plan"));
    let l = f.ledger();
    let spec = &l.header().tasks[0];
    let plan = gate::stats::design::design_single(0.9, 0.7, 0.05, 0.1).unwrap();
    assert_eq!(
        spec.sampling,
        gate::model::Sampling::Single {
            n: plan.n,
            c: plan.c
        }
    );
}

/// `--shard` refuses sequential plans with a clear message.
#[test]
fn shard_refuses_sequential_plans() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&["--shard", "1/2"])
        .code(2)
        .stderr(predicate::str::contains("sequential plan"));
    f.run(&["--shard", "3/2"])
        .code(2)
        .stderr(predicate::str::contains("expected K/M"));
}

/// A shard runs only its own ordinals.
#[test]
fn shard_runs_its_own_ordinals() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 10, c: 3}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    // The summary shows the exit code gate run uses, not the one a merge would.
    f.run(&["--shard", "2/3"])
        .code(0)
        .stdout(predicate::str::contains(
            "gate  INCONCLUSIVE for now: shard 2/3 of a sharded run (exit 0;",
        ));
    let trials: Vec<u64> = attempts(&f.ledger()).iter().map(|a| a.trial).collect();
    assert_eq!(trials, vec![2, 5, 8]);
}

/// The bundled plans run on a fresh clone and give the documented verdicts.
#[test]
fn bundled_plans_give_their_documented_verdicts() {
    let root = env!("CARGO_MANIFEST_DIR");
    let cases = [
        (
            "plans/demo.yaml",
            1,
            vec![
                ("summarize-report", Verdict::Pass),
                ("summarize-report-regressed", Verdict::Fail),
                ("book-meeting", Verdict::Pass),
            ],
        ),
        (
            "plans/examples/single.yaml",
            0,
            vec![("refund-order", Verdict::Pass)],
        ),
        (
            "plans/examples/sequential.yaml",
            1,
            vec![("send-invoice", Verdict::Fail)],
        ),
        (
            "plans/examples/design.yaml",
            0,
            vec![
                ("delete-account", Verdict::Pass),
                ("pay-supplier", Verdict::Pass),
            ],
        ),
        (
            "plans/examples/report.yaml",
            1,
            vec![("book-flight", Verdict::Pass), ("refund", Verdict::Fail)],
        ),
        (
            "plans/examples/staged.yaml",
            1,
            vec![
                ("checkout", Verdict::Pass),
                ("agent-healthy", Verdict::Pass),
                ("agent-regressed", Verdict::Fail),
            ],
        ),
    ];
    for (plan, code, verdicts) in cases {
        let out = tempfile::tempdir().unwrap();
        let ledger = out.path().join("ledger.jsonl");
        gate()
            .current_dir(root)
            .args(["run", plan, "--no-step-summary", "--ledger"])
            .arg(&ledger)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .code(code);
        let l = gate::ledger::Ledger::read(&ledger).unwrap();
        for (task, v) in verdicts {
            assert_eq!(
                decision(&l, task).verdict,
                Judgement::Verdict(v),
                "{plan}: {task}"
            );
        }
        // The demo's tool-using task shows the failure mode only `check` catches.
        if plan == "plans/demo.yaml" {
            assert!(
                l.attempts().any(|a| a.task == "book-meeting"
                    && a.exit_code == Some(0)
                    && a.check_exit == Some(1)),
                "a claimed success caught by check"
            );
        }
    }
}

/// A row torn by a crash (no trailing newline) does not stop the ledger from parsing, and
/// `--resume` drops it and continues.
#[test]
fn torn_last_row_is_survivable() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 6, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&[]).code(0);
    // Simulate a run that died mid-way: keep the header and two attempts, then half a row.
    let text = read(&f.ledger_path());
    let lines: Vec<&str> = text.lines().collect();
    let torn = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..lines[3].len() / 2]
    );
    std::fs::write(f.ledger_path(), torn).unwrap();
    let l = f.ledger();
    assert!(l.torn_tail.is_some());
    assert_eq!(l.records.len(), 3);
    f.run(&["--resume"])
        .code(0)
        .stderr(predicate::str::contains("incomplete row"));
    let l = f.ledger();
    assert_eq!(l.first_chain_break(), None);
    assert!(l.torn_tail.is_none());
    assert_eq!(decision(&l, "t").counts.passed, 6);
}

/// A new run never overwrites an earlier ledger or its logs.
#[test]
fn a_second_run_keeps_the_first_ledger() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'echo hello'\n",
    );
    f.run(&[]).code(0);
    let first = read(&f.ledger_path());
    f.run(&[])
        .code(0)
        .stderr(predicate::str::contains("was kept as"));
    assert_eq!(read(&f.path("out/ledger.jsonl.1")), first);
    let logs: Vec<_> = walk(&f.path("out/runs"))
        .into_iter()
        .filter(|p| p.extension().is_some_and(|e| e == "log"))
        .collect();
    assert_eq!(logs.len(), 2, "{logs:?}");
}

/// Regression (review): trials still running at Ctrl-C are the slow ones; skipping them on
/// `--resume` biased the verdict (PASS became FAIL). They are re-run at the same ordinal.
#[test]
fn resume_reruns_trials_cancelled_at_the_interrupt() {
    let yaml = "version: 1\nsampling: {single: {n: 10, c: 5}}\ntasks:\n  - id: t\n    run: 'if [ $((GATE_TRIAL % 2)) -eq 1 ]; then exit 1; fi; sleep 0.6'\npolicy: {jobs: 4}\n";
    let whole = Fixture::new(yaml);
    whole.run(&[]).code(0);
    let d = decision(&whole.ledger(), "t").clone();
    assert_eq!(
        (d.verdict, d.counts.passed, d.counts.failed),
        (Judgement::Verdict(Verdict::Pass), 5, 5)
    );

    let f = Fixture::new(yaml);
    assert_eq!(run_and_interrupt(&f, Duration::from_millis(300)), Some(130));
    let cancelled: Vec<u64> = attempts(&f.ledger())
        .iter()
        .filter(|r| r.outcome == Outcome::Cancelled)
        .map(|r| r.trial)
        .collect();
    assert!(
        !cancelled.is_empty(),
        "slow trials were in flight at the interrupt"
    );

    f.run(&["--resume"]).code(0);
    let l = f.ledger();
    let r = decision(&l, "t");
    assert_eq!(
        (r.verdict, r.counts.passed, r.counts.failed),
        (d.verdict, d.counts.passed, d.counts.failed)
    );
    for t in cancelled {
        assert!(
            attempts(&l)
                .iter()
                .any(|a| a.trial == t && a.attempt == 1 && a.graded),
            "trial {t} re-run at its ordinal"
        );
    }
    gate().arg("verify").arg(f.ledger_path()).assert().code(0);
}

/// Regression (review): resuming with another `--task` selection corrupted the ledger.
#[test]
fn resume_refuses_another_task_selection() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: a\n    run: 'true'\n  - id: b\n    run: 'true'\n",
    );
    f.run(&["--task", "a"]).code(0);
    // Make it resumable: drop the footer as a crash would.
    let text = read(&f.ledger_path());
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| !l.contains("\"kind\":\"footer\""))
        .collect();
    std::fs::write(f.ledger_path(), kept.join("\n") + "\n").unwrap();
    f.run(&["--resume"])
        .code(2)
        .stderr(predicate::str::contains("same `--task` selection"));
}

/// Result files are read, stored (redacted) in the ledger, and removed from disk.
#[test]
fn result_files_do_not_outlive_the_attempt() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 2, c: 0}}
tasks:
  - id: t
    run: 'printf "{\"pass\": true, \"note\": \"used sk-abcdefghij\"}" > "$GATE_RESULT"'
policy: {redact: ['sk-[a-z]+']}
"#,
    );
    f.run(&[]).code(0);
    let files = walk(&f.path("out"));
    assert!(
        files
            .iter()
            .all(|p| p.extension().is_none_or(|e| e != "json")),
        "{files:?}"
    );
    let l = f.ledger();
    assert_eq!(
        attempts(&l)[0]
            .detail
            .result
            .as_ref()
            .unwrap()
            .note
            .as_deref(),
        Some("used ***")
    );
}

/// Output paths are checked before any trial runs; an empty file at the ledger path is fine.
#[test]
fn bad_output_paths_fail_before_any_trial() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: 'touch work/ran'\n",
    );
    std::fs::create_dir(f.path("work")).unwrap();
    std::fs::create_dir_all(f.path("adir")).unwrap();
    f.run(&["--junit", "adir"])
        .code(2)
        .stderr(predicate::str::contains("is a directory"));
    assert!(!f.path("work/ran").exists(), "no trial ran");
    std::fs::create_dir_all(f.path("out")).unwrap();
    std::fs::write(f.ledger_path(), "").unwrap();
    f.run(&[]).code(0);
    assert!(
        !f.path("out/ledger.jsonl.1").exists(),
        "an empty file is not kept"
    );
}

/// Regression (review): values that overflowed deadlines or hung shard arithmetic are
/// rejected at load time, with their location.
#[test]
fn absurd_plan_values_are_rejected() {
    let cases: &[(&str, &str)] = &[
        (
            "sampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n    timeout: 18000000000000000000\n",
            "plan.yaml:6:14: invalid duration",
        ),
        (
            "sampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n    timeout: 200h\n",
            "at most 168h",
        ),
        (
            "sampling: {single: {n: 18446744073709551615, c: 3}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "`n` must be between 1 and 1000000",
        ),
        (
            "sampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, max_trials: 99999999999}\ntasks:\n  - id: t\n    run: 'true'\n",
            "`max_trials` must be between 1 and 1000000",
        ),
        (
            "sampling:\n  design: {healthy: 0.9, regressed: 0.7, rule: single, max_trials: 5}\ntasks:\n  - id: t\n    run: 'true'\n",
            "`max_trials` applies to `rule: sequential` only",
        ),
        (
            "sampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: '..'\n    run: 'true'\n",
            "not `.` or `..`",
        ),
        (
            "sampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n    cwd: nowhere\n",
            "plan.yaml:6:10: task `t`: `cwd` `nowhere` is not a directory",
        ),
        (
            "sampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\npolicy:\n  transport:\n    backoff: {min: 10s, max: 1s}\n",
            "plan.yaml:8:14: `policy.transport.backoff.max` must be at least `min`",
        ),
        (
            "sampling:\n  sequential: {healthy: 0.5000001, regressed: 0.5, alpha: 0.05, beta: 0.1}\ntasks:\n  - id: t\n    run: 'true'\n",
            "cannot choose a default `max_trials`",
        ),
        (
            "sampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, max_trials: 8, rule: wald}\ntasks:\n  - id: t\n    run: 'true'\n",
            "is too small: the sequential test needs at least 9 trials to PASS and 3 to FAIL",
        ),
        (
            "sampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, max_trials: 8}\ntasks:\n  - id: t\n    run: 'true'\n",
            "no sequential rule with at most 8 trials meets alpha 0.05 and beta 0.1",
        ),
    ];
    for (body, expected) in cases {
        let f = Fixture::new(&format!("version: 1\n{body}"));
        f.run(&[])
            .code(2)
            .stderr(predicate::str::contains(*expected));
    }
}

/// Regression (review): fast unavailable trials waiting behind a slow earlier ordinal freed
/// their slots, and the runner kept launching far past the unavailable budget.
#[test]
fn unavailable_trials_do_not_launch_past_the_budget() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 5, c: 0}}\ntasks:\n  - id: t\n    run: 'if [ \"$GATE_TRIAL\" = 1 ]; then sleep 1; else exit 75; fi'\npolicy: {jobs: 4, max_unavailable: 2, transport: {exit_codes: [75]}}\n",
    );
    f.run(&[]).code(3);
    let rows = attempts(&f.ledger());
    assert!(
        rows.len() <= 6,
        "launched {} trials for a budget of 2 unavailable",
        rows.len()
    );
    assert_eq!(
        decision(&f.ledger(), "t").verdict,
        Judgement::Verdict(Verdict::Inconclusive)
    );
}

/// Tasks after a harness error never ran; the summary says so instead of "trials missing".
#[test]
fn tasks_after_a_harness_error_say_they_did_not_run() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: broken\n    run: 'no-such-command-xyz'\n  - id: later\n    run: 'true'\n",
    );
    f.run(&[]).code(4).stdout(predicate::str::contains(
        "later  INCONCLUSIVE: not run: the run stopped at the harness error in task `broken`",
    ));
    gate().arg("verify").arg(f.ledger_path()).assert().code(0);
}
