//! What gate publishes about a suite task (issue 30, the published parts): `gate check
//! --format json` states how the suite's alpha is shared over its test cases; the
//! multiplicity line is labelled as the bound it is and names each suite family by its
//! design's guarantee; a suite stopped by a harness error reports the plan the ledger holds.

use crate::common::{Fixture, gate};

/// A generated suite of 33 test cases, deterministic per run (`$1` = the run): 30 always
/// pass, 3 fail at fixed runs (c31 at run 3, c32 at 5 and 11, c33 at 2, 7 and 13). Each run's
/// file has its own timestamp, so no two are one run given twice. It ignores
/// `$GATE_SUITE_CASES`: extra results are recorded and not counted.
const GEN_SH: &str = r#"t=$1
printf '<testsuites><testsuite name="s" timestamp="2026-01-01T%02d:%02d:00">' $((t / 60)) $((t % 60))
i=1
while [ $i -le 33 ]; do
  name=$(printf 'c%02d' $i)
  case "$i:$t" in
    31:3|32:5|32:11|33:2|33:7|33:13) printf '<testcase classname="t" name="%s"><failure message="x"/></testcase>' "$name" ;;
    *) printf '<testcase classname="t" name="%s"/>' "$name" ;;
  esac
  i=$((i + 1))
done
printf '</testsuite></testsuites>\n'
"#;

fn suite_fixture(sampling: &str, run: &str) -> Fixture {
    let f = Fixture::new(&format!(
        "version: 1\nsampling: {sampling}\ntasks:\n  - id: s\n    suite:\n      run: {run}\n      assume_retries_off: true\n"
    ));
    std::fs::write(f.path("gen.sh"), GEN_SH).unwrap();
    f
}

fn check_json(f: &Fixture) -> serde_json::Value {
    let out = gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml", "--format", "json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// Lines of a report that start with one of `starts`, for a snapshot that does not depend on
/// the machine (sandbox, hashes, paths).
fn lines_of(text: &str, starts: &[&str]) -> String {
    text.lines()
        .filter(|l| starts.iter().any(|s| l.trim_start().starts_with(s)))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// `gate check` printed a `family` line for a suite task, but its JSON had no family at all.
/// Now the JSON says how the share works: the suite's alpha (its share of
/// `policy.suite_alpha` here), each case's alpha as a function of K, its value at a few K,
/// and the most cases the share allows.
#[test]
fn check_json_had_no_family_for_a_suite_task() {
    let f = Fixture::new(
        "version: 1\npolicy: {suite_alpha: 0.1}\nsampling:\n  design: {healthy: 0.9, regressed: 0.7, rule: sequential}\ntasks:\n  - id: s\n    suite:\n      run: 'true'\n  - id: other\n    run: 'true'\n",
    );
    let j = check_json(&f);
    let fam = &j["tasks"][0]["family"];
    assert_eq!(fam["design"], "sidak");
    // The suite task's share of suite_alpha over the plan's 2 tasks; its cases share that.
    let task_alpha = -((-0.1f64).ln_1p() / 2.0).exp_m1();
    assert!(
        (fam["alpha"].as_f64().unwrap() - task_alpha).abs() < 1e-15,
        "{fam}"
    );
    assert_eq!(fam["beta"], 0.1);
    assert_eq!(fam["case_alpha"], "1 - (1 - alpha)^(1/K)");
    let at = fam["case_alpha_at"].as_array().unwrap();
    assert_eq!(at.len(), 6);
    for a in at {
        let k = a["cases"].as_u64().unwrap();
        let want = -((-task_alpha).ln_1p() / k as f64).exp_m1();
        assert!(
            (a["case_alpha"].as_f64().unwrap() - want).abs() < 1e-15,
            "{a}"
        );
    }
    // K cases at the share multiply back to the suite's alpha.
    let a50 = at.iter().find(|a| a["cases"] == 50).unwrap()["case_alpha"]
        .as_f64()
        .unwrap();
    assert!((1.0 - (1.0 - a50).powi(50) - task_alpha).abs() < 1e-12);
    let max = fam["max_cases"].as_u64().unwrap();
    let share = |k: u64| -((-task_alpha).ln_1p() / k as f64).exp_m1();
    assert!(
        share(max) >= 1e-9 && share(max + 1) < 1e-9,
        "max_cases {max}"
    );
    assert_eq!(fam["undecided_cases_env"], "GATE_SUITE_CASES");
    // A task that is not a suite has no family; a fixed single rule has no design to share.
    assert!(j["tasks"][1].get("family").is_none());
    let f = suite_fixture("{single: {n: 33, c: 6}}", "'true'");
    let fam = &check_json(&f)["tasks"][0]["family"];
    assert_eq!(fam["design"], "none");
    assert!(
        fam["alpha"].is_null() && fam["max_cases"].is_null(),
        "{fam}"
    );
}

/// The multiplicity line printed `P(a healthy suite fails somewhere) = 0.7548` for 30
/// deterministic and 3 flaky test cases judged one by one at (33, 6), where the false-alarm
/// rate is about 0.05: a worst case shown as a fact. It is now labelled as the bound it is
/// (`gate ingest` judges each test case as a task of its own), and a suite task's family is
/// named with its design's guarantee.
#[test]
fn multiplicity_line_showed_a_worst_case_as_a_fact() {
    let f = suite_fixture(
        "{design: {healthy: 0.9, regressed: 0.7, rule: single}}",
        r#"sh gen.sh "$GATE_TRIAL" > "$GATE_JUNIT""#,
    );
    // The same 33 runs as files, for `gate ingest`.
    let mut files = Vec::new();
    for t in 1..=33 {
        let name = format!("run-{t:02}.xml");
        let out = std::process::Command::new("sh")
            .current_dir(f.dir.path())
            .args(["gen.sh", &t.to_string()])
            .output()
            .unwrap();
        std::fs::write(f.path(&name), out.stdout).unwrap();
        files.push(name);
    }
    let ingest = gate()
        .current_dir(f.dir.path())
        .args([
            "ingest",
            "--assume-retries-off",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
        ])
        .args([
            "--sampling",
            "single",
            "--no-step-summary",
            "--ledger",
            "out/ingest.jsonl",
        ])
        .args(["--summary", "out/ingest.md"])
        .args(&files)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(
        ingest.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&ingest.stderr)
    );
    let run = gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "--ledger",
            "out/run.jsonl",
        ])
        .args(["--summary", "out/run.md"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(
        run.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let md = |p: &str| std::fs::read_to_string(f.path(p)).unwrap();
    let text = format!(
        "gate ingest (each test case a task of its own, at (33, 6)):\n{}{}\ngate run (a suite task: one family):\n{}{}",
        lines_of(
            &String::from_utf8_lossy(&ingest.stdout),
            &["gate ", "multiplicity"]
        ),
        lines_of(&md("out/ingest.md"), &["**Multiplicity"]),
        lines_of(
            &String::from_utf8_lossy(&run.stdout),
            &["gate ", "multiplicity", "family"]
        ),
        lines_of(&md("out/run.md"), &["**Multiplicity", "**Family"]),
    );
    insta::assert_snapshot!("multiplicity_of_30_deterministic_and_3_flaky_cases", text);
}

/// A suite task whose command wrote no results on its first run reported `33 trials, pass if
/// at most 0 fail` for a (33, 6) plan: the rule its runs are scheduled by, not the plan the
/// ledger holds. Now the report (terminal, JSON) shows the ledger's plan, and the family line
/// says no family was designed yet (no run recorded the cases).
#[test]
fn harness_error_report_showed_a_plan_the_ledger_does_not_hold() {
    let f = suite_fixture(
        "{single: {n: 33, c: 6}}",
        r#"'if [ "$GATE_TRIAL" != 1 ]; then sh gen.sh "$GATE_TRIAL" > "$GATE_JUNIT"; fi'"#,
    );
    let out = gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "--ledger",
            "out/l.jsonl",
        ])
        .args(["--json", "out/r.json"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("  plan       33 trials, pass if at most 6 fail\n"),
        "{text}"
    );
    assert!(!text.contains("at most 0 fail"), "{text}");
    assert!(
        text.contains(
            "s: 0 test cases, no family design yet: no suite run recorded its test cases"
        ),
        "{text}"
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.path("out/r.json")).unwrap()).unwrap();
    let s = &r["tasks"][0];
    assert_eq!(s["id"], "s");
    assert!(r["verdict"].is_null(), "no verdict is published");
    assert_eq!(
        s["plan"]["sampling"],
        serde_json::json!({"single": {"n": 33, "c": 6}})
    );
    assert_eq!(
        s["plan"]["description"],
        "33 trials, pass if at most 6 fail"
    );
    // `gate report` replays the same.
    let again = gate()
        .current_dir(f.dir.path())
        .args(["report", "out/l.jsonl", "--no-step-summary"])
        .output()
        .unwrap();
    assert_eq!(again.status.code(), Some(4));
    assert!(String::from_utf8_lossy(&again.stdout).contains("33 trials, pass if at most 6 fail"));
}

/// A harness error after the family was designed (the second run writes nothing): the
/// suite's own row shows the family's case rule the ledger recorded, and is not counted in
/// the multiplicity beside the cases that carry its risk.
#[test]
fn harness_error_after_the_family_was_designed_shows_the_family_rule() {
    let f = suite_fixture(
        "{design: {healthy: 0.9, regressed: 0.7, rule: single}}",
        r#"'if [ "$GATE_TRIAL" != 2 ]; then sh gen.sh "$GATE_TRIAL" > "$GATE_JUNIT"; fi'"#,
    );
    let out = gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "--ledger",
            "out/l.jsonl",
        ])
        .args(["--json", "out/r.json"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(4),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.path("out/r.json")).unwrap()).unwrap();
    let tasks = r["tasks"].as_array().unwrap();
    let suite = tasks.iter().find(|t| t["id"] == "s").unwrap();
    let case = tasks.iter().find(|t| t["id"] == "s/t::c01").unwrap();
    assert_eq!(
        suite["plan"]["sampling"], case["plan"]["sampling"],
        "the suite row shows the cases' rule"
    );
    assert_ne!(
        suite["plan"]["sampling"],
        serde_json::json!({"single": {"n": 33, "c": 6}}),
        "the family's rule at the share, not the plan's (33, 6)"
    );
    let known = r["multiplicity"]["tasks"].as_array().unwrap();
    assert_eq!(known.len(), 33, "the cases, not the suite's own row");
    assert!(known.iter().all(|t| t["id"] != "s"));
}

/// `policy.suite_alpha` covers the plan's tasks and every suite's test cases together: the
/// suite task gets its Šidák share over the plan's 2 tasks, its 33 cases share that again,
/// and the whole gate's multiplicity cost stays within `suite_alpha`.
#[test]
fn policy_suite_alpha_covers_suite_cases_and_plan_tasks_together() {
    let f = suite_fixture(
        "{design: {healthy: 0.9, regressed: 0.7, rule: sequential}}",
        r#"sh gen.sh "$GATE_TRIAL" > "$GATE_JUNIT""#,
    );
    let plan = std::fs::read_to_string(f.path("plan.yaml")).unwrap();
    std::fs::write(
        f.path("plan.yaml"),
        format!("{plan}  - id: other\n    run: 'true'\npolicy: {{suite_alpha: 0.1}}\n"),
    )
    .unwrap();
    let out = gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "--ledger",
            "out/l.jsonl",
        ])
        .args(["--json", "out/r.json"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.path("out/r.json")).unwrap()).unwrap();
    let per_task = -((-0.1f64).ln_1p() / 2.0).exp_m1();
    let suite = &r["suites"][0];
    assert_eq!(suite["cases"], 33);
    let family = suite["alpha"].as_f64().unwrap();
    assert!(
        family <= per_task,
        "the suite's family {family} within its share {per_task}"
    );
    let tasks = r["multiplicity"]["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 34, "33 cases and the other task");
    let other = tasks.iter().find(|t| t["id"] == "other").unwrap()["alpha"]
        .as_f64()
        .unwrap();
    assert!(other <= per_task, "{other}");
    let cost = r["multiplicity"]["cost"].as_f64().unwrap();
    assert!(
        (cost - (1.0 - (1.0 - family) * (1.0 - other))).abs() < 1e-12 && cost <= 0.1,
        "multiplicity {cost}"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("over 1 task and the family of suite s (33 test cases, ≤ "),
        "{text}"
    );
}

/// `--healthy 0.9%` reads as 0.009: `gate plan`, `check` and `run` warned, but `gate suite`
/// and `gate ingest` took it silently. Now they say what was read, as `gate plan` does.
#[test]
fn a_rate_below_one_percent_was_silent_on_gate_suite_and_gate_ingest() {
    let f = suite_fixture("{single: {n: 3, c: 0}}", "'true'");
    let out = std::process::Command::new("sh")
        .current_dir(f.dir.path())
        .args(["gen.sh", "1"])
        .output()
        .unwrap();
    std::fs::write(f.path("run-1.xml"), out.stdout).unwrap();
    let healthy = "warning: `--healthy` was read as 0.9% = 0.009; did you mean `90%`?";
    let regressed = "warning: `--regressed` was read as 0.7% = 0.007; did you mean `70%`?";
    let suite = gate()
        .current_dir(f.dir.path())
        .args([
            "suite",
            "--healthy",
            "0.9%",
            "--regressed",
            "0.7%",
            "--sampling",
            "single",
        ])
        .args([
            "--ledger",
            "out/suite.jsonl",
            "--no-step-summary",
            "--",
            "true",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&suite.stderr);
    assert!(err.contains(healthy) && err.contains(regressed), "{err}");
    let ingest = gate()
        .current_dir(f.dir.path())
        .args([
            "ingest",
            "--assume-retries-off",
            "--healthy",
            "0.9%",
            "--regressed",
            "0.7%",
        ])
        .args([
            "--sampling",
            "single",
            "--ledger",
            "out/ingest.jsonl",
            "--no-step-summary",
        ])
        .arg("run-1.xml")
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&ingest.stderr);
    assert!(err.contains(healthy) && err.contains(regressed), "{err}");
    // A plain rate says nothing.
    let plain = gate()
        .current_dir(f.dir.path())
        .args([
            "ingest",
            "--assume-retries-off",
            "--healthy",
            "90%",
            "--regressed",
            "70%",
        ])
        .args([
            "--ledger",
            "out/plain.jsonl",
            "--no-step-summary",
            "run-1.xml",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&plain.stderr).contains("warning: `--"));
}
