//! `compare:` tasks under `gate run`: pairs of head and base, with coin-flip commands whose
//! outcomes are fixed by `GATE_TRIAL`, `GATE_SIDE` and a per-task seed, so every run is
//! reproducible and its figures can be checked against the published design.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use gate::ledger::Row;
use gate::model::{Judgement, Outcome, Verdict};
use gate::pair_sampler::Side;
use gate::stats::compare::{CompareDesign, CompareSpec, Effect};
use predicates::prelude::*;

use crate::common::*;

/// A side's command: pass with probability `$HEAD_RATE` / `$BASE_RATE` (after pair
/// `$DRIFT_AT`, `$LATE_RATE` for both), from an awk generator seeded by the task's `$SEED`,
/// the pair and the side.
const COIN: &str = r#"awk -v t="$GATE_TRIAL" -v s="$SEED" 'BEGIN { side = (ENVIRON["GATE_SIDE"] == "base"); srand(s * 7919 + t * 2 + side); r = side ? ENVIRON["BASE_RATE"] : ENVIRON["HEAD_RATE"]; if (ENVIRON["DRIFT_AT"] != "" && t > ENVIRON["DRIFT_AT"] + 0) r = ENVIRON["LATE_RATE"]; rand(); exit (rand() < r + 0) ? 0 : 1 }'"#;

/// A plan of `tasks` compare tasks with seeds 1..=tasks and the given rates (`env` lines).
fn plan(tasks: u64, rule: &str, env: &str) -> String {
    let mut yaml = format!(
        "version: 1\nbase: {{env: {{SIDE_SELECTED: base}}}}\nsampling:\n  {rule}\npolicy: {{jobs: 2}}\ntasks:\n"
    );
    for k in 1..=tasks {
        let _ = write!(
            yaml,
            "  - id: t{k}\n    run: '{}'\n    env: {{SEED: \"{k}\", {env}}}\n",
            COIN.replace('\'', "''")
        );
    }
    yaml
}

fn verdicts(f: &Fixture) -> Vec<Verdict> {
    f.ledger()
        .decisions()
        .filter_map(|d| d.verdict.verdict())
        .collect()
}

/// Graded pairs each task consumed, from the JSON report (`tasks[].pairs.total`).
fn pairs_of(f: &Fixture) -> Vec<u64> {
    let out = gate()
        .current_dir(f.dir.path())
        .args([
            "report",
            "out/ledger.jsonl",
            "--json",
            "-",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    v["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            let p = &t["pairs"];
            let sum = ["both_pass", "both_fail", "head_only_fail", "base_only_fail"]
                .iter()
                .map(|k| p[k].as_u64().unwrap())
                .sum::<u64>();
            assert_eq!(p["total"].as_u64().unwrap(), sum, "{p}");
            sum
        })
        .collect()
}

/// Real `gate run`s of coin-flip head (75%) and base (90%) — the design point of odds ratio 3
/// — agree with the published P(FAIL) and expected pairs (exact, from the design's OC with
/// the `max_pairs` truncation), within four standard errors.
#[test]
fn monte_carlo_of_real_runs_agrees_with_the_published_oc() {
    const TASKS: u64 = 24;
    let f = Fixture::new(&plan(
        TASKS,
        "compare: {odds_ratio: 3}",
        "HEAD_RATE: \"0.75\", BASE_RATE: \"0.9\"",
    ));
    f.run(&["-q"]);
    let v = verdicts(&f);
    assert_eq!(v.len() as u64, TASKS);
    let design = CompareDesign::new(&CompareSpec::new(Effect::OddsRatio(3.0))).unwrap();
    let oc = design.oc_independent(0.9, 0.75).unwrap();
    let fails = v.iter().filter(|&&x| x == Verdict::Fail).count() as f64 / TASKS as f64;
    let se = (oc.p_fail * (1.0 - oc.p_fail) / TASKS as f64)
        .sqrt()
        .max(0.02);
    assert!(
        (fails - oc.p_fail).abs() <= 4.0 * se,
        "P(FAIL) observed {fails}, published {}",
        oc.p_fail
    );
    let pairs = pairs_of(&f);
    let mean = pairs.iter().sum::<u64>() as f64 / TASKS as f64;
    let var = pairs
        .iter()
        .map(|&p| (p as f64 - mean).powi(2))
        .sum::<f64>()
        / (TASKS - 1) as f64;
    let se = (var / TASKS as f64).sqrt().max(1.0);
    assert!(
        (mean - oc.expected_pairs).abs() <= 4.0 * se,
        "expected pairs observed {mean}, published {}",
        oc.expected_pairs
    );
}

/// Both sides fall from 95% to 60% after pair 8 (a model update hits head and base alike):
/// compare stays within alpha, while a one-sample plan that assumed a healthy 95% fails
/// most runs.
#[test]
fn drift_that_hits_both_sides_does_not_fail_compare_but_fails_a_one_sample_plan() {
    const TASKS: u64 = 10;
    let rates = "HEAD_RATE: \"0.95\", BASE_RATE: \"0.95\", DRIFT_AT: \"8\", LATE_RATE: \"0.6\"";
    let f = Fixture::new(&plan(TASKS, "compare: {odds_ratio: 3}", rates));
    f.run(&["-q"]);
    let v = verdicts(&f);
    let not_pass = v.iter().filter(|&&x| x != Verdict::Pass).count();
    // P(not PASS) <= 0.05 per task: 3 or more of 10 has probability below 0.012.
    assert!(not_pass <= 2, "compare: {v:?}");

    let one_sample = plan(TASKS, "sequential: {healthy: 0.95, regressed: 0.8}", rates)
        .replace("base: {env: {SIDE_SELECTED: base}}\n", "");
    let g = Fixture::new(&one_sample);
    g.run(&["-q"]);
    let v = verdicts(&g);
    let failed = v.iter().filter(|&&x| x == Verdict::Fail).count();
    assert!(failed >= 7, "one-sample: {v:?}");
}

/// Every row of a compare run carries its side and position; both sides of each pair share
/// `GATE_TRIAL`; `gate verify` recomputes the decision and `gate report` the pair counts.
#[test]
fn verify_and_report_recompute_a_compare_ledger() {
    let f = Fixture::new(&plan(
        1,
        "compare: {odds_ratio: 3}",
        "HEAD_RATE: \"0.5\", BASE_RATE: \"0.95\"",
    ));
    f.run(&[])
        .code(1)
        .stdout(predicate::str::contains("regression detected"))
        .stdout(predicate::str::contains("naive rates: head"));
    let l = f.ledger();
    let rows = attempts(&l);
    assert!(
        rows.iter()
            .all(|a| a.side.is_some() && a.pair_position.is_some())
    );
    let pairs = pairs_of(&f)[0];
    for p in 1..=pairs {
        for side in [Side::Head, Side::Base] {
            assert!(
                rows.iter()
                    .any(|a| a.trial == p && a.side == Some(side) && a.graded),
                "pair {p} {side:?}"
            );
        }
    }
    let d = decision(&l, "t1");
    assert_eq!(d.verdict, Judgement::Verdict(Verdict::Fail));
    gate()
        .args(["verify"])
        .arg(f.ledger_path())
        .assert()
        .success()
        .stdout(predicate::str::contains("1 decision recomputes"));
    gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl", "--no-step-summary"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("head only fail"))
        .stdout(predicate::str::contains("θ = P(head loses | discordant)"));
}

/// `gate run` killed (SIGKILL) in the middle of a pair: `--resume` runs again only the sides
/// never graded, at their own pair, and the ledger verifies.
#[test]
fn resume_after_a_kill_mid_pair() {
    let f = Fixture::new(&format!(
        "version: 1\nbase: {{env: {{B: \"1\"}}}}\nsampling: {{compare: {{odds_ratio: 3, max_pairs: 60}}}}\ntasks:\n  - id: t\n    run: 'sleep 0.05; {}'\n    env: {{SEED: \"3\", HEAD_RATE: \"0.9\", BASE_RATE: \"0.9\"}}\n",
        COIN.replace('\'', "''")
    ));
    let mut child = f
        .std_command(&[])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Wait for an odd number of attempt rows (one side of a pair done, the other running).
    let started = Instant::now();
    loop {
        let n = read(&f.ledger_path())
            .matches("\"kind\":\"attempt\"")
            .count();
        if n >= 3 && n % 2 == 1 {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(60), "no rows");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before: Vec<_> = attempts(&f.ledger())
        .into_iter()
        .filter(|a| a.graded)
        .map(|a| (a.trial, a.side))
        .collect();
    f.run(&["--resume"]);
    let l = f.ledger();
    assert!(l.records.iter().any(|r| matches!(r.row, Row::Resume(_))));
    let graded: Vec<_> = attempts(&l)
        .into_iter()
        .filter(|a| a.graded)
        .map(|a| (a.trial, a.side))
        .collect();
    for key in &before {
        assert_eq!(
            graded.iter().filter(|k| *k == key).count(),
            1,
            "{key:?} graded once"
        );
    }
    assert!(l.decisions().any(|d| d.task == "t"));
    gate()
        .args(["verify"])
        .arg(f.ledger_path())
        .assert()
        .success();
    assert!(
        attempts(&l)
            .iter()
            .all(|a| a.outcome != Outcome::HarnessError)
    );
}

/// Bad input: a compare rule without any `base:`, R <= 1, rates in the wrong order, both
/// forms at once — each an error at the rule's file:line:col, exit 2.
#[test]
fn bad_compare_rules_are_refused_at_load_time() {
    let cases = [
        (
            "version: 1\nsampling: {compare: {odds_ratio: 3}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "needs a `base:`",
        ),
        (
            "version: 1\nbase: {cwd: .}\nsampling: {compare: {odds_ratio: 1}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "greater than 1",
        ),
        (
            "version: 1\nbase: {cwd: .}\nsampling: {compare: {base: 0.8, regressed: 0.9}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "must be below `base`",
        ),
        (
            "version: 1\nbase: {cwd: .}\nsampling: {compare: {odds_ratio: 2, base: 0.9, regressed: 0.8}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "not both",
        ),
        (
            "version: 1\nbase: {cwd: nowhere}\nsampling: {compare: {odds_ratio: 2}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "not a directory",
        ),
        (
            "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n    base: {cwd: .}\n",
            "applies to `compare:` tasks only",
        ),
    ];
    for (yaml, want) in cases {
        let f = Fixture::new(yaml);
        f.run(&[])
            .code(2)
            .stderr(predicate::str::contains("plan.yaml:"))
            .stderr(predicate::str::contains(want));
    }
}

/// `gate ingest --base`: the k-th run of a test on base pairs with its k-th run on head; the
/// same rule decides, the ledger records the sides, and `gate verify` recomputes it. A
/// `compare:` rule without `--base` is refused, and so is `--base` with another rule.
#[test]
fn ingest_pairs_base_and_head_result_files() {
    let dir = tempfile::tempdir().unwrap();
    // Head fails test `a` on every odd run, base never: every discordant pair is a head loss.
    let write = |side: &str, k: u64, a_fails: bool| {
        let fail = if a_fails {
            r#"<failure message="boom">x</failure>"#
        } else {
            ""
        };
        std::fs::write(
            dir.path().join(format!("{side}-{k:02}.xml")),
            format!(
                // Each run its own suite name and time, as real runs' files differ: gate
                // refuses the same bytes given twice.
                r#"<?xml version="1.0"?><testsuites><testsuite name="{side}" tests="1"><testcase classname="suite" name="a" time="{k}.01">{fail}</testcase></testsuite></testsuites>"#
            ),
        )
        .unwrap();
    };
    for k in 1..=30 {
        write("base", k, false);
        write("head", k, k % 2 == 1);
    }
    let files =
        |side: &str| -> Vec<String> { (1..=30).map(|k| format!("{side}-{k:02}.xml")).collect() };
    let mut cmd = gate();
    cmd.current_dir(dir.path())
        .args(["ingest", "--odds-ratio", "3", "--assume-retries-off"])
        .args(["--ledger", "l.jsonl", "--no-step-summary", "--base"])
        .args(files("base"))
        .arg("--")
        .args(files("head"))
        .env_remove("GITHUB_STEP_SUMMARY");
    cmd.assert()
        .code(1)
        .stdout(predicate::str::contains("regression detected"));
    let l = gate::ledger::Ledger::read(&dir.path().join("l.jsonl")).unwrap();
    let rows: Vec<_> = l.attempts().collect();
    assert!(rows.iter().any(|a| a.side == Some(Side::Base)));
    assert!(rows.iter().any(|a| a.side == Some(Side::Head)));
    assert_eq!(l.header().sources.len(), 60);
    gate()
        .current_dir(dir.path())
        .args(["verify", "l.jsonl"])
        .assert()
        .success();
    // Without `--base` a compare rule has nothing to compare against.
    gate()
        .current_dir(dir.path())
        .args([
            "ingest",
            "--single",
            "5,1",
            "--assume-retries-off",
            "--ledger",
            "m.jsonl",
        ])
        .args(["--base", "base-01.xml", "--", "head-01.xml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("needs a `compare:` rule"));
}

/// A side that times out under `policy.timeout: unavailable` makes its pair void: replaced,
/// counted against the unavailable budget, and past it the task is INCONCLUSIVE.
#[test]
fn a_timed_out_side_voids_its_pair_under_timeout_unavailable() {
    let f = Fixture::new(
        "version: 1\nsampling: {compare: {odds_ratio: 3}}\ntasks:\n  - id: t\n    run: 'true'\n    base: {run: 'sleep 5'}\n    timeout: 200ms\npolicy: {timeout: unavailable, max_unavailable: 2, jobs: 2, kill_grace: 100ms}\n",
    );
    f.run(&[])
        .code(3)
        .stdout(predicate::str::contains("3 void pairs"));
    let l = f.ledger();
    let d = decision(&l, "t");
    assert_eq!(d.verdict, Judgement::Verdict(Verdict::Inconclusive));
    assert_eq!(
        (d.counts.unavailable, d.counts.passed, d.counts.failed),
        (3, 0, 0)
    );
    // Three pairs were drawn: each void one replaced until the budget was spent.
    let base_rows = attempts(&l)
        .into_iter()
        .filter(|a| a.side == Some(Side::Base))
        .count();
    assert_eq!(base_rows, 3);
}

/// Issue 31: a task that both sides always pass, or always fail, has no discordant pair,
/// and used to run all its `max_pairs` pairs to an INCONCLUSIVE (exit 3). The loss route
/// PASSes it at its first pair, about ln(1/beta)/drop: 30 for beta's share and 10 points.
#[test]
fn a_stable_task_passes_within_the_loss_routes_first_pairs_on_always_pass_and_always_fail() {
    let design = CompareDesign::new(&CompareSpec::new(Effect::OddsRatio(3.0))).unwrap();
    let first = design
        .loss_route
        .expect("the default design has a loss route")
        .first;
    assert!(first <= 30, "{first}");
    for cmd in ["true", "false"] {
        let f = Fixture::new(&format!(
            "version: 1\nbase: {{env: {{SIDE_SELECTED: base}}}}\nsampling:\n  compare: {{odds_ratio: 3}}\ntasks:\n  - id: stable\n    run: '{cmd}'\n"
        ));
        f.run(&["-q"]).code(0);
        assert_eq!(verdicts(&f), vec![Verdict::Pass], "{cmd}");
        assert_eq!(pairs_of(&f), vec![first], "{cmd}");
        let d = f.ledger().decisions().next().unwrap().clone();
        assert!(d.reason.contains("loss route"), "{}", d.reason);
        gate()
            .current_dir(f.dir.path())
            .args(["verify", "out/ledger.jsonl"])
            .assert()
            .success();
    }
}

/// Issue 31: real runs against the published figures of the two-route rule. Heads as good
/// as base at 80% and at 97% FAIL within alpha; a head at 75% against a base at 95% (a fall
/// of 20 points, odds ratio 6.3) FAILs with probability at least 1 − beta.
#[test]
fn real_runs_at_equal_rates_fail_within_alpha_and_a_95_to_75_regression_fails() {
    const TASKS: u64 = 12;
    let design = CompareDesign::new(&CompareSpec::new(Effect::OddsRatio(3.0))).unwrap();
    for (base, head) in [("0.8", "0.8"), ("0.97", "0.97"), ("0.95", "0.75")] {
        let f = Fixture::new(&plan(
            TASKS,
            "compare: {odds_ratio: 3}",
            &format!("HEAD_RATE: \"{head}\", BASE_RATE: \"{base}\""),
        ));
        f.run(&["-q"]);
        let v = verdicts(&f);
        assert_eq!(v.len() as u64, TASKS);
        let fails = v.iter().filter(|&&x| x == Verdict::Fail).count();
        let oc = design
            .oc_independent(base.parse().unwrap(), head.parse().unwrap())
            .unwrap();
        if base == head {
            // P(FAIL) <= alpha = 0.05 per task: 3 or more of 12 has probability below 0.02.
            assert!(oc.p_fail <= 0.05, "{oc:?}");
            assert!(fails <= 2, "{base}/{head}: {v:?}");
        } else {
            // P(FAIL) >= 0.9 per task: 9 or fewer of 12 has probability below 0.12; the
            // published figure is far above it (0.998), so 10 or more is required.
            assert!(oc.p_fail >= 0.9, "{oc:?}");
            assert!(fails >= 10, "{base}/{head}: {v:?}");
        }
    }
}

/// Issue 31: through `gate ingest --base`, a deterministic test with 30 runs a side used to
/// be INCONCLUSIVE (red), and so was a base compared with another 30 runs of itself; both
/// PASS now. (The very same files on both sides are one set of runs given twice: refused.)
#[test]
fn ingest_base_passes_a_deterministic_test_and_a_base_compared_with_itself() {
    let dir = tempfile::tempdir().unwrap();
    // Each file is a run of its own: its timestamp says when (identical files would be one
    // run given twice, which gate refuses).
    let write = |name: &str, fails: bool| {
        let fail = if fails {
            r#"<failure message="boom">x</failure>"#
        } else {
            ""
        };
        let stamp = name
            .bytes()
            .fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(u32::from(b)));
        std::fs::write(
            dir.path().join(name),
            format!(
                r#"<?xml version="1.0"?><testsuites><testsuite name="s" tests="1" timestamp="2026-12-03T10:00:00.{stamp:010}"><testcase classname="suite" name="a" time="0.01">{fail}</testcase></testsuite></testsuites>"#
            ),
        )
        .unwrap();
    };
    for k in 1..=30 {
        write(&format!("base-{k:02}.xml"), false);
        write(&format!("head-{k:02}.xml"), false);
        // A flaky base, run twice: fails one run in three both times.
        write(&format!("flaky-{k:02}.xml"), k % 3 == 0);
        write(&format!("again-{k:02}.xml"), k % 3 == 0);
    }
    let files =
        |side: &str| -> Vec<String> { (1..=30).map(|k| format!("{side}-{k:02}.xml")).collect() };
    for (base, head) in [("base", "head"), ("flaky", "again")] {
        gate()
            .current_dir(dir.path())
            .args(["ingest", "--odds-ratio", "3", "--assume-retries-off"])
            .args([
                "--ledger",
                &format!("{base}-{head}.jsonl"),
                "--no-step-summary",
                "--base",
            ])
            .args(files(base))
            .arg("--")
            .args(files(head))
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .code(0);
        gate()
            .current_dir(dir.path())
            .args(["verify", &format!("{base}-{head}.jsonl")])
            .assert()
            .success();
    }
}

/// Issue 31: head fails and base passes every pair, so the rule FAILs at its earliest
/// state. θ's stopping-aware estimate used to be 1 there and the odds ratio's infinite
/// (`null` in the JSON report, with probability 0.10 at θ1 for this design); it is finite
/// now, with the interval's finite lower end. Every report also states P(not PASS | head =
/// base) at the discordance the run observed, and beta with what it covers.
#[test]
fn odds_ratio_estimate_is_finite_when_head_loses_every_pair_and_reports_state_alpha_at_the_observed_discordance()
 {
    let f = Fixture::new(
        "version: 1\nbase: {env: {SIDE_SELECTED: base}}\nsampling:\n  compare: {odds_ratio: 3}\ntasks:\n  \
         - id: loses\n    run: '[ \"$SIDE_SELECTED\" = base ]'\n  - id: stable\n    run: 'true'\n",
    );
    f.run(&["-q"]).code(1);
    let design = CompareDesign::new(&CompareSpec::new(Effect::OddsRatio(3.0))).unwrap();
    let out = gate()
        .current_dir(f.dir.path())
        .args([
            "report",
            "out/ledger.jsonl",
            "--json",
            "-",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let loses = &v["tasks"][0]["compare"];
    let theta = loses["theta"]["estimate"].as_f64().unwrap();
    assert!(theta > 0.75 && theta < 1.0, "{loses}");
    let odds = loses["odds_ratio_estimate"]["estimate"].as_f64();
    assert!(
        odds.is_some_and(|r| (r - theta / (1.0 - theta)).abs() < 1e-9),
        "{loses}"
    );
    assert!(
        loses["odds_ratio_estimate"]["lo"].as_f64().unwrap() > 1.0,
        "{loses}"
    );
    assert!(loses["odds_ratio_estimate"]["hi"].is_null(), "{loses}");
    // Alpha at the observed discordance: every pair disagreed.
    let a = &loses["alpha_at_observed"];
    assert_eq!(a["discordance"].as_f64().unwrap(), 1.0);
    let oc = design.oc_discordance(1.0, 0.5);
    assert!((a["p_not_pass"].as_f64().unwrap() - (1.0 - oc.p_pass)).abs() < 1e-12);
    assert!((a["p_fail"].as_f64().unwrap() - oc.p_fail).abs() < 1e-12);
    // Beta with what it covers.
    assert!(
        (loses["lattice_beta"].as_f64().unwrap() - design.lattice_realised_beta()).abs() < 1e-12
    );
    assert!((loses["loss_route_beta"].as_f64().unwrap() - design.loss_route_beta()).abs() < 1e-12);
    assert_eq!(loses["drop"].as_f64().unwrap(), 0.1);
    // The stable task: no pair disagreed, and at no disagreement the loss route always
    // PASSes.
    let stable = &v["tasks"][1]["compare"]["alpha_at_observed"];
    assert_eq!(stable["discordance"].as_f64().unwrap(), 0.0);
    assert_eq!(stable["p_not_pass"].as_f64().unwrap(), 0.0);
    // The terminal report's compare lines, and the Markdown summary's (`|` escaped).
    let text = gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl", "--no-step-summary"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    let tasks: String = text
        .lines()
        .take_while(|l| !l.starts_with("gate "))
        .map(|l| format!("{l}\n"))
        .collect();
    insta::assert_snapshot!("compare_report_alpha_at_observed", tasks);
    gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl", "--summary", "-"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .stdout(predicate::str::contains(
            "- **Compare:** alpha at the observed discordance 100.0% (8 of 8 pairs): P(not PASS \\| head = base) = 0.0475",
        ))
        .stdout(predicate::str::contains(
            "- **Compare:** beta: P(PASS \\| θ = 0.7500) = 0.0494 from the discordant rule",
        ));
}
