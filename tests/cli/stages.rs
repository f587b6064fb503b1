//! Staged (group-sequential) rules: `gate plan --stage`, `stage:` in plan files, sharded
//! stages merged by `gate report`, and a Monte Carlo of real staged runs.

use crate::common::json_of;
use gate::stats::lattice::Boundaries;
use gate::stats::staged;
use serde_json::Value;

fn f(v: &Value) -> f64 {
    v.as_f64().expect("a number")
}

/// The staged rule's published stage-end rows as a lattice (every other row continues).
fn staged_lattice(v: &Value) -> Boundaries {
    let st = &v["staged"];
    let m = st["max_trials"].as_u64().unwrap();
    let rows: Vec<(u64, Option<u64>, Option<u64>)> = st["lattice"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["trials"].as_u64().unwrap(),
                r["pass_max_failures"].as_u64(),
                r["fail_min_failures"].as_u64(),
            )
        })
        .collect();
    Boundaries::from_fn(m, |t| {
        rows.iter()
            .find(|r| r.0 == t)
            .map_or((None, None), |r| (r.1, r.2))
    })
    .unwrap()
}

#[test]
fn plan_stage_publishes_trials_stages_and_oc_of_its_own_lattice() {
    let v = json_of(
        "plan",
        &["--healthy", "0.9", "--regressed", "0.7", "--stage", "9"],
    );
    let st = &v["staged"];
    assert_eq!(
        (st["stage"].as_u64(), st["rule"].as_str()),
        (Some(9), Some("calibrated"))
    );
    assert_eq!(st["max_stages"], 8);
    assert!(f(&st["realised_alpha"]) <= 0.05 && f(&st["realised_beta"]) <= 0.10);
    // Every figure recomputes from the published stage-end rows.
    let b = staged_lattice(&v);
    assert!(staged::is_staged(&b, 9));
    let h = b.oc(0.9);
    assert!((h.asn - f(&st["trials_healthy"])).abs() < 1e-9);
    assert!((staged::expected_stages(&b, 9, 0.7) - f(&st["stages_regressed"])).abs() < 1e-9);
    // Fewer rounds than one trial at a time, fewer trials than the single plan.
    assert!(f(&st["stages_healthy"]) < f(&st["sequential_trials_healthy"]) / 4.0);
    assert!(f(&st["trials_healthy"]) < f(&st["single_trials_healthy"]));
    for row in st["oc"].as_array().unwrap() {
        let oc = b.oc(f(&row["p"]));
        assert!((oc.p_pass - f(&row["p_pass"])).abs() < 1e-12);
    }
    // Without --stage there is no staged section.
    let v = json_of("plan", &["--healthy", "0.9", "--regressed", "0.7"]);
    assert!(v["staged"].is_null());
}

#[test]
fn plan_stage_with_too_few_stages_says_which_flag_to_raise() {
    crate::common::gate()
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--stage",
            "4",
            "--max-stages",
            "2",
        ])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("raise `--max-stages`"));
}

/// Stages of 9 at 90% vs 70%: PASS at 0 failures of 9, FAIL at 4; PASS at 2 of 18, FAIL at 5.
/// Trials 3 and 14 fail (and 11 and 12 under `MORE_FAILURES`).
const STAGED: &str = "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}\ntasks:\n  - id: t\n    run: 'case $GATE_TRIAL in 3|14) exit 1;; 11|12) test -z \"$MORE_FAILURES\";; esac'\n";

/// `gate run --stage S --shard K/3` into `out/sS-K.jsonl`, after the ledgers of stages 1 to
/// S-1 in `out/`; a stage's shard exits 0.
fn run_shard(fx: &crate::common::Fixture, stage: u64, k: u64) -> std::path::PathBuf {
    let after: Vec<_> = (1..stage)
        .flat_map(|s| (1..=3).map(move |j| (s, j)))
        .map(|(s, j)| fx.path(&format!("out/s{s}-{j}.jsonl")))
        .collect();
    run_stage(fx, stage, k, &after, &[]).code(0);
    fx.path(&format!("out/s{stage}-{k}.jsonl"))
}

/// `gate run --stage S --shard K/3 --after LEDGER…` into `out/sS-K.jsonl`, with `env`.
fn run_stage(
    fx: &crate::common::Fixture,
    stage: u64,
    k: u64,
    after: &[std::path::PathBuf],
    env: &[(&str, &str)],
) -> assert_cmd::assert::Assert {
    let ledger = format!("out/s{stage}-{k}.jsonl");
    stage_command(fx, &ledger, stage, k, after, env).assert()
}

/// `gate run plan.yaml --stage S --shard K/3 --after LEDGER… --ledger LEDGER` in the
/// fixture, with `env`.
fn stage_command(
    fx: &crate::common::Fixture,
    ledger: &str,
    stage: u64,
    k: u64,
    after: &[std::path::PathBuf],
    env: &[(&str, &str)],
) -> assert_cmd::Command {
    let mut cmd = crate::common::gate();
    cmd.current_dir(fx.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
        .arg(fx.path(ledger))
        .args(["--stage", &stage.to_string(), "--shard", &format!("{k}/3")])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY");
    for l in after {
        cmd.arg("--after").arg(l);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// `gate report LEDGERS --json -`: (exit code, JSON, stderr).
fn report(fx: &crate::common::Fixture, ledgers: &[std::path::PathBuf]) -> (i32, Value, String) {
    let out = crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["report", "--no-step-summary", "--json", "-"])
        .args(ledgers)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let json = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    (
        out.status.code().unwrap(),
        json,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn sharded_stages_continue_then_decide_and_refuse_what_is_not_a_run() {
    let fx = crate::common::Fixture::new(STAGED);
    let stage1: Vec<_> = (1..=3).map(|k| run_shard(&fx, 1, k)).collect();
    // Trial 3 failed: 1 failure in 9 is neither PASS (0) nor FAIL (4): continue.
    let (code, v, _) = report(&fx, &stage1);
    assert_eq!(code, 5, "{v}");
    assert_eq!(v["decision"], "CONTINUE");
    assert_eq!(v["verdict"], "INCONCLUSIVE");
    assert_eq!(
        (
            v["stages"]["through"].as_u64(),
            v["stages"]["next"].as_u64()
        ),
        (Some(1), Some(2))
    );

    // A stage with a shard missing is refused, naming it.
    let (code, _, err) = report(&fx, &stage1[..2]);
    assert_eq!(code, 2);
    assert!(err.contains("stage 1 is missing shard 3/3"), "{err}");

    let stage2: Vec<_> = (1..=3).map(|k| run_shard(&fx, 2, k)).collect();
    let all: Vec<_> = stage1.iter().chain(&stage2).cloned().collect();
    // 2 failures in 18 is within the PASS bound at the second stage end.
    let (code, v, _) = report(&fx, &all);
    assert_eq!((code, v["decision"].as_str()), (0, Some("PASS")), "{v}");
    assert_eq!(v["stages"]["decided_in"], 2);
    assert!(v["stages"]["next"].is_null());
    assert_eq!(v["tasks"][0]["trials"]["graded"], 18);
    // The estimate is stopping-aware for the staged rule.
    assert_eq!(v["tasks"][0]["pass_rate"]["method"], "stagewise");

    // Stage 2 without stage 1 is no run.
    let (code, _, err) = report(&fx, &stage2);
    assert_eq!(code, 2);
    assert!(err.contains("stage 1 is missing"), "{err}");

    // A stage after the decision is refused before any trial runs…
    run_stage(&fx, 3, 1, &all, &[])
        .code(2)
        .stderr(predicates::str::contains(
            "the staged run already decided (PASS after stage 2)",
        ));
    assert!(!fx.path("out/s3-1.jsonl").exists());
    // … and by the merge, when it ran after another stage 2 (two more failures: undecided).
    let other: Vec<_> = (1..=3)
        .map(|k| {
            let l = format!("out/x2-{k}.jsonl");
            stage_command(&fx, &l, 2, k, &stage1, &[("MORE_FAILURES", "1")])
                .assert()
                .code(0);
            fx.path(&l)
        })
        .collect();
    let undecided: Vec<_> = stage1.iter().chain(&other).cloned().collect();
    for k in 1..=3 {
        run_stage(&fx, 3, k, &undecided, &[]).code(0);
    }
    let mut more = all.clone();
    more.extend((1..=3).map(|k| fx.path(&format!("out/s3-{k}.jsonl"))));
    let (code, _, err) = report(&fx, &more);
    assert_eq!(code, 2);
    assert!(
        err.contains("ran after the rule decided in stage 2"),
        "{err}"
    );

    // The same shard of a stage from two runs is refused.
    let again = fx.path("out/again.jsonl");
    std::fs::copy(&stage1[0], fx.path("out/keep.jsonl")).unwrap();
    crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
        .arg(&again)
        .args(["--stage", "1", "--shard", "1/3"])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(0);
    let mut dup = stage1.clone();
    dup.push(again);
    let (code, _, err) = report(&fx, &dup);
    assert_eq!(code, 2);
    assert!(err.contains("shard 1/3 is given twice"), "{err}");
}

/// Review side note (issue 29, V2): a stage's shard given twice (one path twice, or a byte
/// copy) was merged once and exited 3 or 5, where docs/running.md promises exit 2.
#[test]
fn stage_shard_given_twice_exits_2_as_running_md_promises() {
    let fx = crate::common::Fixture::new(STAGED);
    let stage1: Vec<_> = (1..=3).map(|k| run_shard(&fx, 1, k)).collect();
    let copy = fx.path("out/copy-of-s1-1.jsonl");
    std::fs::copy(&stage1[0], &copy).unwrap();
    for twice in [stage1[0].clone(), copy] {
        let mut given = stage1.clone();
        given.push(twice);
        let (code, v, err) = report(&fx, &given);
        assert_eq!(code, 2, "{v} {err}");
        assert!(
            err.contains("stage 1: shard 1/3 is given twice, by the same run's ledger"),
            "{err}"
        );
        // The same holds where stage 2 takes them as `--after` ledgers, before any trial.
        run_stage(&fx, 2, 1, &given, &[])
            .code(2)
            .stderr(predicates::str::contains("shard 1/3 is given twice"));
        assert!(!fx.path("out/s2-1.jsonl").exists());
    }
}

#[test]
fn a_stage_shard_alone_is_a_partial_view_without_annotations() {
    let fx = crate::common::Fixture::new(STAGED);
    let stage1: Vec<_> = (1..=3).map(|k| run_shard(&fx, 1, k)).collect();
    let ledger = fx.path("out/s2-1.jsonl");
    let out = crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
        .arg(&ledger)
        .args(["--stage", "2", "--shard", "1/3"])
        .args(
            stage1
                .iter()
                .flat_map(|p| [std::ffi::OsStr::new("--after"), p.as_os_str()]),
        )
        .env("GITHUB_ACTIONS", "true")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains("INCONCLUSIVE for now: stage 2, shard 1/3 of a staged run"),
        "{stdout}"
    );
    assert!(!stdout.contains("::warning"), "{stdout}");
    // Nothing decided: its trials wait behind the other shards' and stages', not a decision.
    assert!(
        stdout.contains("excluded 3 finished behind an earlier trial not counted"),
        "{stdout}"
    );
    // Its ordinals are stage 2's share: 10, 13, 16.
    let l = gate::ledger::Ledger::read(&ledger).unwrap();
    let trials: Vec<u64> = crate::common::attempts(&l)
        .iter()
        .map(|a| a.trial)
        .collect();
    assert_eq!(trials, vec![10, 13, 16]);
}

#[test]
fn stage_flags_are_refused_where_they_cannot_apply() {
    let fx = crate::common::Fixture::new(STAGED);
    // 72 trials in stages of 9, and one more stage for the unavailable budget of 8.
    fx.command(&["--stage", "10"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("runs stages 1 to 9"));
    fx.command(&["--stage", "1", "--shard", "1/10"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("more shards than trials"));
    let sequential = crate::common::Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    sequential
        .command(&["--stage", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("has no staged rule"));
    // A suite's test cases do not run in stages.
    let suite = crate::common::Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, stage: 9}\ntasks:\n  - id: s\n    suite:\n      run: 'true'\n",
    );
    suite
        .command(&["--stage", "1"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("task `s` is a suite"));
    // From stage 2 on, the earlier stages' ledgers are needed, and stage 1 has none.
    fx.command(&["--stage", "2"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains(
            "needs the ledgers of stage 1 (`--after LEDGER`",
        ));
    fx.command(&["--stage", "1", "--after", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("stage 1 has no earlier stages"));
}

/// SplitMix64: a tiny, well-mixed generator for the Monte Carlo's outcomes (tests only).
struct SplitMix(u64);

impl SplitMix {
    fn next_f64(&mut self) -> f64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        (z >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// What one real staged run did: its decision, the stages it ran, and each task's verdict
/// and graded trials.
struct RunResult {
    decision: String,
    stages: u64,
    tasks: Vec<(String, u64)>,
}

/// One real staged run of the tasks `ids` (task `id` passes trial k iff line k of
/// `outcomes-ID.txt` is 1): stage by stage, 2 shards each, each stage after every ledger so
/// far (`--after`), merged with `gate report` after every stage until it decides.
fn staged_run(dir: &std::path::Path, ids: &[&str], outcomes: &[Vec<bool>]) -> RunResult {
    for (id, o) in ids.iter().zip(outcomes) {
        let text: String = o.iter().map(|&p| if p { "1\n" } else { "0\n" }).collect();
        std::fs::write(dir.join(format!("outcomes-{id}.txt")), text).unwrap();
    }
    let mut ledgers: Vec<std::path::PathBuf> = Vec::new();
    for stage in 1u64.. {
        let mut these = Vec::new();
        for k in 1..=2 {
            let ledger = dir.join(format!("out/s{stage}-{k}.jsonl"));
            let st = crate::common::gate()
                .current_dir(dir)
                .args(["run", "plan.yaml", "--no-step-summary", "-q", "--ledger"])
                .arg(&ledger)
                .args(["--stage", &stage.to_string(), "--shard", &format!("{k}/2")])
                .args(
                    ledgers
                        .iter()
                        .flat_map(|p| [std::ffi::OsStr::new("--after"), p.as_os_str()]),
                )
                .env_remove("GITHUB_ACTIONS")
                .output()
                .unwrap();
            assert_eq!(
                st.status.code(),
                Some(0),
                "{}",
                String::from_utf8_lossy(&st.stderr)
            );
            these.push(ledger);
        }
        ledgers.extend(these);
        let out = crate::common::gate()
            .current_dir(dir)
            .args(["report", "--no-step-summary", "--json", "-"])
            .args(&ledgers)
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let code = out.status.code().unwrap();
        match v["decision"].as_str().unwrap() {
            "CONTINUE" => {
                assert_eq!(code, 5);
                assert_eq!(v["stages"]["next"].as_u64(), Some(stage + 1));
            }
            d => {
                assert_eq!(v["stages"]["decided_in"].as_u64(), Some(stage), "{v}");
                let tasks = (0..ids.len())
                    .map(|i| {
                        let t = &v["tasks"][i];
                        (
                            t["verdict"].as_str().unwrap().to_string(),
                            t["trials"]["graded"].as_u64().unwrap(),
                        )
                    })
                    .collect();
                return RunResult {
                    decision: d.to_string(),
                    stages: stage,
                    tasks,
                };
            }
        }
    }
    unreachable!("the loop returns at the decision")
}

/// Where a lattice decides on `outcomes`, walked trial by trial: (verdict, trials).
fn lattice_decision(b: &Boundaries, outcomes: &[bool]) -> (&'static str, u64) {
    let mut f = 0;
    for (t, &pass) in outcomes.iter().enumerate() {
        f += u64::from(!pass);
        let t = t as u64 + 1;
        match b.decide(t, f) {
            gate::stats::lattice::State::Continue => {}
            gate::stats::lattice::State::Pass => return ("PASS", t),
            gate::stats::lattice::State::Fail => return ("FAIL", t),
            _ => return ("INCONCLUSIVE", t),
        }
    }
    panic!("the outcomes end before the rule decides")
}

/// Mean of `values` agrees with `want` within 4 standard errors.
fn agrees(values: &[f64], want: f64) {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let var = values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (var / n).sqrt().max(1e-9);
    assert!((mean - want).abs() < 4.0 * se, "{mean} vs {want} (se {se})");
}

/// Frequency of `hits` in `n` agrees with the probability `p` within 4 standard errors.
fn frequency_agrees(hits: usize, n: usize, p: f64) {
    let freq = hits as f64 / n as f64;
    let se = (p * (1.0 - p) / n as f64).sqrt().max(1e-9);
    assert!((freq - p).abs() < 4.0 * se, "{freq} vs {p}");
}

/// `runs` real staged runs of `yaml`'s tasks `ids` (true rates `rates`, rules `rules` with
/// their stage lengths), four at a time; every run is checked against the lattice walks of
/// its own outcomes: the run's decision and stages, and each task's verdict and trials.
fn monte_carlo(
    yaml: &str,
    ids: &[&str],
    rules: &[(Boundaries, u64)],
    rates: &[f64],
    runs: u64,
) -> Vec<RunResult> {
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..4u64)
            .map(|w| {
                s.spawn(move || {
                    let mut out = Vec::new();
                    for run in (w..runs).step_by(4) {
                        let fx = crate::common::Fixture::new(yaml);
                        let mut rng = SplitMix(0x5EED ^ run.wrapping_mul(0x1234_5678_9ABC));
                        let outcomes: Vec<Vec<bool>> = rules
                            .iter()
                            .zip(rates)
                            .map(|((b, _), &p)| {
                                (0..b.max_trials() + 16)
                                    .map(|_| rng.next_f64() < p)
                                    .collect()
                            })
                            .collect();
                        let got = staged_run(fx.dir.path(), ids, &outcomes);
                        // Where each task's lattice decides on its outcomes, and so the run:
                        // at the first stage with a FAIL, else at the last task's decision.
                        let want: Vec<(&str, u64, u64)> = rules
                            .iter()
                            .zip(&outcomes)
                            .map(|((b, size), o)| {
                                let (v, t) = lattice_decision(b, o);
                                (v, t, staged::stage_of(*size, t))
                            })
                            .collect();
                        let first_fail = want.iter().filter(|w| w.0 == "FAIL").map(|w| w.2).min();
                        let stages =
                            first_fail.unwrap_or_else(|| want.iter().map(|w| w.2).max().unwrap());
                        let decision = if first_fail.is_some() {
                            "FAIL"
                        } else if want.iter().all(|w| w.0 == "PASS") {
                            "PASS"
                        } else {
                            "INCONCLUSIVE"
                        };
                        assert_eq!(
                            (got.decision.as_str(), got.stages),
                            (decision, stages),
                            "run {run}"
                        );
                        for ((w, g), (_, size)) in want.iter().zip(&got.tasks).zip(rules) {
                            if w.2 <= stages {
                                assert_eq!((w.0, w.1), (g.0.as_str(), g.1), "run {run}");
                            } else {
                                // Stopped by another task's FAIL: undecided, every trial of
                                // the stages run counted, none of a later stage launched.
                                assert_eq!(
                                    ("INCONCLUSIVE", stages * size),
                                    (g.0.as_str(), g.1),
                                    "run {run}"
                                );
                            }
                        }
                        out.push(got);
                    }
                    out
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect()
    })
}

/// Monte Carlo of real staged runs (sharded stages merged by `gate report`) at a true rate
/// between the two design rates: every run decides exactly where the published lattice says
/// for its outcomes, and the frequencies and means agree with the published OC, expected
/// trials and expected stages (within 4 standard errors).
#[test]
fn monte_carlo_of_sharded_staged_runs_agrees_with_the_published_oc_trials_and_stages() {
    const P: f64 = 0.7;
    let v = json_of(
        "plan",
        &["--healthy", "0.85", "--regressed", "0.55", "--stage", "6"],
    );
    let b = staged_lattice(&v);
    let exact = b.oc(P);
    let exact_stages = staged::expected_stages(&b, 6, P);
    let yaml = "version: 1\nsampling:\n  sequential: {healthy: 0.85, regressed: 0.55, stage: 6}\ntasks:\n  - id: t\n    run: 'sed -n \"${GATE_TRIAL}p\" outcomes-t.txt | grep -q 1'\n";
    let results = monte_carlo(yaml, &["t"], &[(b, 6)], &[P], 40);
    let pass = results.iter().filter(|r| r.decision == "PASS").count();
    frequency_agrees(pass, results.len(), exact.p_pass);
    let trials: Vec<f64> = results.iter().map(|r| r.tasks[0].1 as f64).collect();
    agrees(&trials, exact.asn);
    let stages: Vec<f64> = results.iter().map(|r| r.stages as f64).collect();
    agrees(&stages, exact_stages);
}

/// The same for a plan of two tasks with different stage lengths, run together stage by
/// stage: each task's verdict and trials are its own lattice's on its outcomes (or, once
/// the other task FAILed, undecided with no later stage launched), and the gate's PASS and
/// FAIL frequencies and its stages agree with the exact figures computed from the two
/// published lattices ([`staged::run_figures`]).
#[test]
fn monte_carlo_of_a_two_task_staged_run_agrees_with_the_published_oc_and_stages() {
    let (pa, pb) = (0.75, 0.8);
    let a = staged_lattice(&json_of(
        "plan",
        &["--healthy", "0.85", "--regressed", "0.55", "--stage", "6"],
    ));
    let b = staged_lattice(&json_of(
        "plan",
        &["--healthy", "0.9", "--regressed", "0.6", "--stage", "4"],
    ));
    let yaml = "version: 1\ntasks:\n  - id: a\n    sampling:\n      sequential: {healthy: 0.85, regressed: 0.55, stage: 6}\n    run: 'sed -n \"${GATE_TRIAL}p\" outcomes-a.txt | grep -q 1'\n  - id: b\n    sampling:\n      sequential: {healthy: 0.9, regressed: 0.6, stage: 4}\n    run: 'sed -n \"${GATE_TRIAL}p\" outcomes-b.txt | grep -q 1'\n";
    let exact = staged::run_figures(&[
        staged::RunTask {
            rule: &a,
            stage: 6,
            p: pa,
        },
        staged::RunTask {
            rule: &b,
            stage: 4,
            p: pb,
        },
    ]);
    let results = monte_carlo(
        yaml,
        &["a", "b"],
        &[(a.clone(), 6), (b.clone(), 4)],
        &[pa, pb],
        40,
    );
    let n = results.len();
    let count = |d: &str| results.iter().filter(|r| r.decision == d).count();
    frequency_agrees(count("PASS"), n, exact.p_pass);
    frequency_agrees(count("FAIL"), n, exact.p_fail);
    let stages: Vec<f64> = results.iter().map(|r| r.stages as f64).collect();
    agrees(&stages, exact.expected_stages);
}

/// `stage: 12, max_stages: 3` at 90% vs 70% designs the single plan (33, 6) at stage ends,
/// whose lattice ends at 33: the plan must record that truncation, or the sampler would
/// refuse a lattice that does not end at `max_trials`.
#[test]
fn a_staged_design_that_ends_before_max_stages_records_its_own_truncation() {
    let fx = crate::common::Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, stage: 12, max_stages: 3}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    // Stage 1 run whole is the whole evidence so far: it says CONTINUE (exit 5) itself.
    fx.command(&["--stage", "1"]).assert().code(5);
    let v = json_of(
        "plan",
        &[
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--stage",
            "12",
            "--max-stages",
            "3",
        ],
    );
    assert_eq!(v["staged"]["max_trials"], 33);
    assert_eq!(v["staged"]["max_stages"], 3);
}

/// Run whole with `--jobs B`, a staged rule launches one stage at a time: the regressed
/// example agent FAILs at the first stage end, so exactly 15 trials ran and none was
/// launched (and cancelled) beyond it; the healthy one PASSes at the second, after 30.
#[test]
fn a_staged_rule_with_jobs_runs_one_stage_at_a_time() {
    let plan = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("plans/examples/staged.yaml");
    for (task, verdict, trials) in [
        ("agent-regressed", "FAIL", 15),
        ("agent-healthy", "PASS", 30),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let ledger = dir.path().join("ledger.jsonl");
        crate::common::gate()
            .args([
                "run",
                "--no-step-summary",
                "-q",
                "--jobs",
                "15",
                "--task",
                task,
                "--ledger",
            ])
            .arg(&ledger)
            .arg(&plan)
            .env_remove("GITHUB_ACTIONS")
            .assert()
            .code(if verdict == "FAIL" { 1 } else { 0 });
        let l = gate::ledger::Ledger::read(&ledger).unwrap();
        let attempts = crate::common::attempts(&l);
        assert_eq!(attempts.len(), trials, "{task}");
        assert!(
            attempts
                .iter()
                .all(|a| a.outcome != gate::model::Outcome::Cancelled)
        );
        assert_eq!(
            crate::common::decision(&l, task)
                .verdict
                .verdict()
                .map(|v| v.as_str()),
            Some(verdict)
        );
    }
}

/// "Re-run failed jobs" of a staged workflow re-runs one stage's shard under a new CI attempt
/// while the other shards keep theirs: that is a retry of the shard, and the merge refuses it
/// (issue 19: a shard from another run or attempt is refused).
#[test]
fn a_stage_shard_from_another_ci_attempt_is_refused() {
    let fx = crate::common::Fixture::new(STAGED);
    let shard = |k: u64, attempt: &str| {
        let ledger = fx.path(&format!("out/s1-{k}-a{attempt}.jsonl"));
        crate::common::gate()
            .current_dir(fx.dir.path())
            .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
            .arg(&ledger)
            .args(["--stage", "1", "--shard", &format!("{k}/3")])
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env("GITHUB_RUN_ID", "77")
            .env("GITHUB_RUN_ATTEMPT", attempt)
            .env("GITHUB_JOB", "stage-1")
            .assert()
            .code(0);
        ledger
    };
    let (a, b, c) = (shard(1, "1"), shard(2, "1"), shard(3, "2"));
    let (code, _, err) = report(&fx, &[a.clone(), b.clone(), c]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("attempt"), "{err}");
    // The same shards of one attempt merge and decide (CONTINUE after stage 1).
    let c1 = shard(3, "1");
    let (code, v, err) = report(&fx, &[a, b, c1]);
    assert_eq!(
        (code, v["decision"].as_str()),
        (5, Some("CONTINUE")),
        "{err}"
    );
}

/// `gate check` states a staged rule's expected stages, the same figures `gate plan --stage`
/// publishes for that design.
#[test]
fn check_states_the_expected_stages_of_a_staged_rule() {
    let fx = crate::common::Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 15, max_stages: 3}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    let out = crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["check", "plan.yaml", "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let check: Value = serde_json::from_slice(&out.stdout).unwrap();
    let e = &check["tasks"][0]["expected_stages"];
    let v = json_of(
        "plan",
        &[
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--stage",
            "15",
            "--max-stages",
            "3",
        ],
    );
    let st = &v["staged"];
    assert!(
        (f(&e["healthy"]) - f(&st["stages_healthy"])).abs() < 1e-12,
        "{e} {st}"
    );
    assert!((f(&e["regressed"]) - f(&st["stages_regressed"])).abs() < 1e-12);
    crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .success()
        .stdout(predicates::str::contains(format!(
            "stages     expected {:.2} at 90%",
            f(&st["stages_healthy"])
        )));
}

/// Three tasks in stages of 9: `slow` fails trials 3 and 14 (undecided after stage 1, PASS
/// after stage 2), `clean` never fails (PASS in stage 1; it fails trial 2 under
/// `CLEAN_FAILS`), `once` is a single (5, 1) plan, run whole in stage 1.
const SEVERAL: &str = "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}\ntasks:\n  - id: slow\n    run: 'case $GATE_TRIAL in 3|14) exit 1;; esac'\n  - id: clean\n    run: 'test -z \"$CLEAN_FAILS\" || test $GATE_TRIAL != 2'\n  - id: once\n    sampling:\n      single: {n: 5, c: 1}\n    run: 'true'\n";

/// The trials of `task` a ledger records.
fn trials_of(ledger: &std::path::Path, task: &str) -> Vec<u64> {
    let l = gate::ledger::Ledger::read(ledger).unwrap();
    crate::common::attempts(&l)
        .iter()
        .filter(|a| a.task == task)
        .map(|a| a.trial)
        .collect()
}

#[test]
fn several_tasks_run_their_stages_and_a_decided_task_runs_nothing_later() {
    let fx = crate::common::Fixture::new(SEVERAL);
    let stage1: Vec<_> = (1..=3).map(|k| run_shard(&fx, 1, k)).collect();
    // Shard K takes its share of every task's ordinals, the single plan's too.
    assert_eq!(trials_of(&stage1[1], "slow"), vec![2, 5, 8]);
    assert_eq!(trials_of(&stage1[1], "clean"), vec![2, 5, 8]);
    assert_eq!(trials_of(&stage1[1], "once"), vec![2, 5]);
    let (code, v, _) = report(&fx, &stage1);
    assert_eq!((code, v["decision"].as_str()), (5, Some("CONTINUE")), "{v}");
    let st = &v["stages"];
    assert_eq!(
        (st["through"].as_u64(), st["next"].as_u64()),
        (Some(1), Some(2))
    );
    // The tasks' stages differ (9 and the single plan's 5): no common stage size.
    assert!(st["stage_size"].is_null());
    let runs_next: Vec<_> = st["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap(),
                t["runs_next"].as_bool().unwrap(),
                t["decided_in"].as_u64(),
            )
        })
        .collect();
    assert_eq!(
        runs_next,
        vec![
            ("slow", true, None),
            ("clean", false, Some(1)),
            ("once", false, Some(1))
        ]
    );
    let text = crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["report", "--no-step-summary"])
        .args(&stage1)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains("run stage 2 for 1 of 3 tasks")
            && text
                .contains("`slow` runs stage 2 · `clean` PASS in stage 1 · `once` PASS in stage 1"),
        "{text}"
    );

    // Stage 2 runs only `slow`, and says why the others run nothing.
    run_stage(&fx, 2, 1, &stage1, &[])
        .code(0)
        .stderr(predicates::str::contains(
            "clean: PASS in stage 1; runs nothing in stage 2",
        ))
        .stderr(predicates::str::contains(
            "once: PASS in stage 1; runs nothing in stage 2",
        ));
    let stage2: Vec<_> = (1..=3)
        .map(|k| {
            if k > 1 {
                run_stage(&fx, 2, k, &stage1, &[]).code(0);
            }
            fx.path(&format!("out/s2-{k}.jsonl"))
        })
        .collect();
    assert_eq!(trials_of(&stage2[0], "slow"), vec![10, 13, 16]);
    assert!(trials_of(&stage2[0], "clean").is_empty());
    let all: Vec<_> = stage1.iter().chain(&stage2).cloned().collect();
    let (code, v, err) = report(&fx, &all);
    assert_eq!((code, v["decision"].as_str()), (0, Some("PASS")), "{err}");
    assert_eq!(v["stages"]["decided_in"], 2);
    let decided: Vec<_> = v["stages"]["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["decided_in"].as_u64())
        .collect();
    assert_eq!(decided, vec![Some(2), Some(1), Some(1)]);

    // A stage 2 that ran `clean` (after a stage 1 in which it had failed once) is refused
    // with this stage 1, where `clean` decided: per task.
    let other1: Vec<_> = (1..=3)
        .map(|k| {
            let l = format!("out/o1-{k}.jsonl");
            stage_command(&fx, &l, 1, k, &[], &[("CLEAN_FAILS", "1")])
                .assert()
                .code(0);
            fx.path(&l)
        })
        .collect();
    for k in 1..=3 {
        let l = format!("out/o2-{k}.jsonl");
        stage_command(&fx, &l, 2, k, &other1, &[]).assert().code(0);
        assert_eq!(
            trials_of(&fx.path(&l), "clean"),
            vec![9 + k, 12 + k, 15 + k]
        );
    }
    let mixed: Vec<_> = stage1
        .iter()
        .cloned()
        .chain((1..=3).map(|k| fx.path(&format!("out/o2-{k}.jsonl"))))
        .collect();
    let (code, _, err) = report(&fx, &mixed);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("ran task `clean`, which decided in stage 1"),
        "{err}"
    );

    // A shard of stage 2 that left out an undecided task is refused, naming its trial.
    crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "-q", "--ledger"])
        .arg(fx.path("out/m2-2.jsonl"))
        .args(["--stage", "2", "--shard", "2/3", "--task", "slow"])
        .args(
            other1
                .iter()
                .flat_map(|p| [std::ffi::OsStr::new("--after"), p.as_os_str()]),
        )
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(0);
    let holed: Vec<_> = other1
        .iter()
        .cloned()
        .chain([
            fx.path("out/o2-1.jsonl"),
            fx.path("out/m2-2.jsonl"),
            fx.path("out/o2-3.jsonl"),
        ])
        .collect();
    let (code, _, err) = report(&fx, &holed);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("stage 2 is missing trial #11 of task `clean`"),
        "{err}"
    );

    // The next stage is named, and a stage given the wrong earlier stages is refused.
    run_stage(&fx, 3, 1, &stage1, &[])
        .code(2)
        .stderr(predicates::str::contains(
            "the ledgers given are stages 1 to 1, so the next stage is 2",
        ));
}

/// One task FAILs in stage 1 while another is undecided: the gate's FAIL is certain, so
/// the run decides FAIL at once and no stage 2 runs (a team pays for every trial).
#[test]
fn a_fail_decides_a_staged_run_of_several_tasks_at_once() {
    let fx = crate::common::Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}\ntasks:\n  - id: slow\n    run: 'case $GATE_TRIAL in 3|14) exit 1;; esac'\n  - id: broken\n    run: 'test $((GATE_TRIAL % 2)) = 0'\n",
    );
    let stage1: Vec<_> = (1..=3).map(|k| run_shard(&fx, 1, k)).collect();
    let (code, v, _) = report(&fx, &stage1);
    assert_eq!((code, v["decision"].as_str()), (1, Some("FAIL")), "{v}");
    assert_eq!(v["stages"]["decided_in"], 1);
    assert!(v["stages"]["next"].is_null());
    assert_eq!(v["stages"]["failed_early"], "broken");
    assert_eq!(v["tasks"][0]["verdict"], "INCONCLUSIVE");
    run_stage(&fx, 2, 1, &stage1, &[])
        .code(2)
        .stderr(predicates::str::contains(
            "the staged run already decided (FAIL after stage 1)",
        ));
    let text = crate::common::gate()
        .current_dir(fx.dir.path())
        .args(["report", "--no-step-summary"])
        .args(&stage1)
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout).into_owned();
    assert!(
        text.contains(
            "`slow` undecided, not run after stage 1 (`broken` FAILed) · `broken` FAIL in stage 1"
        ),
        "{text}"
    );
}

/// Bug: a stage whose ledger `gate report` could never merge with the earlier stages' (its
/// shards from another CI run or attempt, another shard count, or a whole run after shards)
/// ran all its trials, and only the report refused. It is refused before any trial.
#[test]
fn a_stage_that_could_never_merge_with_its_after_ledgers_is_refused_before_any_trial() {
    let fx = crate::common::Fixture::new(STAGED);
    let ci = [("GITHUB_RUN_ID", "77"), ("GITHUB_RUN_ATTEMPT", "1")];
    for k in 1..=3 {
        run_stage(&fx, 1, k, &[], &ci).code(0);
    }
    let after: Vec<_> = (1..=3)
        .map(|k| fx.path(&format!("out/s1-{k}.jsonl")))
        .collect();
    let refused = |cmd: &mut assert_cmd::Command, why: &str| {
        cmd.assert().code(2).stderr(predicates::str::contains(why));
        assert!(!fx.path("out/s2-1.jsonl").exists());
    };
    // Another CI run, another attempt, outside CI.
    let other_run = [("GITHUB_RUN_ID", "78"), ("GITHUB_RUN_ATTEMPT", "1")];
    refused(
        &mut stage_command(&fx, "out/s2-1.jsonl", 2, 1, &after, &other_run),
        "attempt 1 of CI run 77, this stage in attempt 1 of CI run 78",
    );
    let retry = [("GITHUB_RUN_ID", "77"), ("GITHUB_RUN_ATTEMPT", "2")];
    refused(
        &mut stage_command(&fx, "out/s2-1.jsonl", 2, 1, &after, &retry),
        "this stage in attempt 2 of CI run 77",
    );
    refused(
        stage_command(&fx, "out/s2-1.jsonl", 2, 1, &after, &[]).env_remove("GITHUB_RUN_ID"),
        "this stage outside GitHub Actions",
    );
    // Another shard count, or the stage run whole.
    let stage_2 = |shard: &[&str]| {
        let mut cmd = crate::common::gate();
        cmd.current_dir(fx.dir.path())
            .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
            .arg(fx.path("out/s2-1.jsonl"))
            .args(["--stage", "2"])
            .args(shard)
            .env_remove("GITHUB_ACTIONS")
            .envs(ci);
        for l in &after {
            cmd.arg("--after").arg(l);
        }
        cmd
    };
    refused(
        &mut stage_2(&["--shard", "1/2"]),
        "ran as shards of 3, this stage as shards of 2",
    );
    refused(&mut stage_2(&[]), "this stage as a whole run");
    // The same CI run and attempt (another matrix job) runs.
    run_stage(
        &fx,
        2,
        1,
        &after,
        &[("GITHUB_JOB", "stage-2"), ci[0], ci[1]],
    )
    .code(0);
}

/// Bug: stage 1 run whole (no `--shard`) wrote the CONTINUE exit (5) in its footer, and a
/// later stage run whole a 0, which `gate verify` and `gate report` recomputed as 3 and
/// refused: an unsharded staged run could never be verified or merged.
#[test]
fn a_staged_run_without_shards_verifies_and_merges_stage_by_stage() {
    let fx = crate::common::Fixture::new(STAGED);
    let whole = |stage: u64, after: &[&str], code: i32| {
        let mut cmd = crate::common::gate();
        cmd.current_dir(fx.dir.path())
            .args(["run", "plan.yaml", "--no-step-summary", "--ledger"])
            .arg(fx.path(&format!("out/w{stage}.jsonl")))
            .args(["--stage", &stage.to_string()])
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY");
        for l in after {
            cmd.arg("--after").arg(fx.path(l));
        }
        cmd.assert().code(code);
    };
    // Trial 3 fails: 1 failure of 9 decides nothing (CONTINUE); 2 of 18 PASS.
    whole(1, &[], 5);
    whole(2, &["out/w1.jsonl"], 0);
    for l in ["out/w1.jsonl", "out/w2.jsonl"] {
        crate::common::gate()
            .args(["verify"])
            .arg(fx.path(l))
            .assert()
            .code(0);
    }
    let (code, v, err) = report(&fx, &[fx.path("out/w1.jsonl")]);
    assert_eq!(
        (code, v["decision"].as_str()),
        (5, Some("CONTINUE")),
        "{err}"
    );
    let (code, v, err) = report(&fx, &[fx.path("out/w1.jsonl"), fx.path("out/w2.jsonl")]);
    assert_eq!((code, v["decision"].as_str()), (0, Some("PASS")), "{err}");
}
