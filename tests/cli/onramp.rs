//! The on-ramp: `gate init`, `gate check`, `gate schema`, completions and the man page, and
//! the forgiving plan input (percent rates, humantime durations, defaults, `$schema:`).

use std::path::Path;

use predicates::prelude::*;

use crate::common::{Fixture, gate};

/// A project directory holding `files` (path, contents).
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    for (path, text) in files {
        let p = dir.path().join(path);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    }
    dir
}

/// `gate init` in `dir`, which must succeed; returns the written plan.
fn init(dir: &Path) -> String {
    gate()
        .current_dir(dir)
        .arg("init")
        .assert()
        .success()
        .stdout(predicate::str::contains("wrote gate.yaml"));
    std::fs::read_to_string(dir.join("gate.yaml")).expect("gate.yaml written")
}

/// `gate check gate.yaml` in `dir` must load the plan cleanly.
fn check_clean(dir: &Path) {
    gate()
        .current_dir(dir)
        .args(["check", "gate.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("gate.yaml: ok · 1 task"));
}

#[test]
fn init_writes_a_commented_pytest_plan_that_checks_clean() {
    let dir = project(&[
        ("pyproject.toml", "[tool.pytest.ini_options]\n"),
        (
            "tests/test_agent.py",
            "import random\n\ndef helper():\n    pass\n\ndef test_refund_flow():\n    assert True\n",
        ),
    ]);
    let plan = init(dir.path());
    insta::assert_snapshot!("init_pytest", plan);
    check_clean(dir.path());
}

#[test]
fn init_detects_cargo_and_writes_the_nextest_suite_plan() {
    let dir = project(&[
        ("Cargo.toml", "[package]\nname = \"x\"\n"),
        ("tests/flow.rs", "#[test]\nfn books_a_meeting() {}\n"),
    ]);
    // Issue 30: every test case of the suite, not one arbitrary test.
    let plan = init(dir.path());
    assert!(
        plan.contains("cargo nextest run --profile ci --retries 0 --no-fail-fast \"$@\""),
        "{plan}"
    );
    assert!(
        plan.contains("harness_exit_codes: [4, 96, 101, 127]"),
        "{plan}"
    );
    check_clean(dir.path());
}

#[test]
fn init_detects_node_and_selects_one_test_by_exact_name() {
    let dir = project(&[
        ("package.json", "{}\n"),
        (
            "test/refund.test.js",
            "import test from 'node:test';\ntest('refunds (twice)', () => {});\n",
        ),
    ]);
    let plan = init(dir.path());
    assert!(
        plan.contains(
            r"out=$(node --test --test-reporter=tap --test-name-pattern '^refunds \(twice\)$' test/refund.test.js); status=$?"
        ),
        "{plan}"
    );
    check_clean(dir.path());
}

#[test]
fn init_detects_go_and_disables_the_test_cache() {
    let dir = project(&[
        ("go.mod", "module example.com/x\n"),
        ("agent/agent_test.go", "package agent\n"),
        (
            "agent_test.go",
            "package x\n\nfunc TestRefund(t *testing.T) {}\n",
        ),
    ]);
    // The whole suite, once per trial through `gate suite` (tests/cli/init.rs runs it).
    let plan = init(dir.path());
    assert!(
        plan.contains(r#"go test -count=1 -json "$@" ./... > "$GATE_JUNIT""#),
        "{plan}"
    );
    gate()
        .current_dir(dir.path())
        .args(["check", "gate.yaml"])
        .assert()
        .success();
}

/// Finding: `node --test`, `cargo test` and `go test` exit 0 when the name matches no test, so
/// a typo in the generated plan would have gated green on zero tests.
#[test]
fn init_plan_for_node_runs_its_test_and_a_typo_is_a_harness_error_not_a_pass() {
    let dir = project(&[
        ("package.json", "{\"type\": \"module\"}\n"),
        (
            "test/refund.test.js",
            "import test from 'node:test';\ntest('refunds an order', () => {});\n",
        ),
    ]);
    let plan = init(dir.path());
    // One shard of 11 runs 3 of the 33 trials: enough to see the test run and pass.
    gate()
        .current_dir(dir.path())
        .args(["run", "gate.yaml", "--shard", "1/11", "--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "trials     run 3 · passed 3 · failed 0",
        ));
    std::fs::write(
        dir.path().join("typo.yaml"),
        plan.replace("^refunds an order$", "^refunds an ordr$"),
    )
    .unwrap();
    gate()
        .current_dir(dir.path())
        .args([
            "run",
            "typo.yaml",
            "--no-step-summary",
            "--ledger",
            "typo/ledger.jsonl",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "run exited 5, a declared harness exit code",
        ));
}

#[test]
fn init_refuses_to_overwrite_an_existing_plan() {
    let dir = project(&[("pytest.ini", "[pytest]\n"), ("gate.yaml", "mine\n")]);
    gate()
        .current_dir(dir.path())
        .arg("init")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`gate.yaml` already exists; gate init never overwrites a plan",
        ));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("gate.yaml")).unwrap(),
        "mine\n"
    );
}

#[test]
fn init_without_a_known_project_says_what_it_looks_for() {
    let dir = project(&[("README", "hello\n")]);
    gate()
        .current_dir(dir.path())
        .arg("init")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--kind pytest|cargo|jest|vitest|mocha|playwright|node|go",
        ));
    assert!(!dir.path().join("gate.yaml").exists());
    // `--kind` writes a plan that runs the whole suite, and says so.
    gate()
        .current_dir(dir.path())
        .args(["init", "--kind", "pytest"])
        .assert()
        .success()
        .stdout(predicate::str::contains("every test case of the suite"));
    check_clean(dir.path());
}

#[test]
fn check_prints_each_tasks_rule_risks_and_expected_trials() {
    let out = gate()
        .args(["check", "plans/demo.yaml"])
        .output()
        .expect("runs");
    assert!(out.status.success());
    insta::assert_snapshot!("check_demo", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn check_json_matches_the_exact_statistics() {
    let v = crate::common::json_of("check", &["plans/demo.yaml"]);
    let t = &v["tasks"][0];
    assert_eq!(t["id"], "summarize-report");
    assert_eq!(t["sampling"]["single"]["n"], 33);
    let plan = gate::stats::lattice::Boundaries::single(33, 6).unwrap();
    let (alpha, beta) = (1.0 - plan.oc(0.9).p_pass, plan.oc(0.7).p_pass);
    assert!((t["risks"]["alpha"].as_f64().unwrap() - alpha).abs() < 1e-12);
    assert!((t["risks"]["beta"].as_f64().unwrap() - beta).abs() < 1e-12);
    let asn = plan.oc(0.9).asn;
    assert!((t["expected_trials"]["healthy"].as_f64().unwrap() - asn).abs() < 1e-12);
    assert_eq!(v["tasks"][2]["sampling"]["sequential"]["max_trials"], 66);
}

#[test]
fn check_rejects_a_bad_plan_with_file_line_col_and_runs_nothing() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'touch ran'\n    retires: 2\n",
    );
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "plan.yaml:6:5: unknown field `retires`",
        ));
    assert!(!f.path("ran").exists());
}

#[test]
fn missing_fields_list_what_the_mapping_takes() {
    let cases: &[(&str, &str)] = &[
        (
            "version: 1\nsampling: {single: {n: 5}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "plan.yaml:2:21: missing field `c`: `single` takes `n`, `c` (required)",
        ),
        (
            "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n",
            "plan.yaml:4:5: missing field `run`: task `t` needs `run`, or `suite: {run: …}` (or, for `gate ingest`, `junit: GLOB`)",
        ),
        (
            "version: 1\nsampling:\n  sequential:\n    healthy: 0.9\n    alpha: 0.1\ntasks:\n  - id: t\n    run: 'true'\n",
            "plan.yaml:5:5: missing field `regressed`: `sequential` takes `healthy`, `regressed` (required) and `alpha`, `beta`, `max_stages`, `max_trials`, `rule`, `stage` (optional)\n",
        ),
        (
            "version: 1\nsampling: {design: {healthy: 0.9}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "missing field `regressed`: `design` takes `healthy`, `regressed` (required) and `alpha`, `beta`, `max_trials`, `rule` (optional)\n",
        ),
        (
            "version: 1\nsampling: {design: {healthy: 0.9, regressed: 0.7, rule: bogus}}\ntasks:\n  - id: t\n    run: 'true'\n",
            "unknown variant `bogus`, expected one of single, sequential, calibrated, wald",
        ),
        (
            "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\npolicy: {timeout: maybe}\n",
            "unknown variant `maybe`, expected one of fail, unavailable",
        ),
    ];
    for (yaml, expected) in cases {
        let f = Fixture::new(yaml);
        gate()
            .current_dir(f.dir.path())
            .args(["check", "plan.yaml"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(*expected));
    }
}

#[test]
fn rates_as_percentages_humantime_durations_and_default_risks_load() {
    let f = Fixture::new(
        "$schema: ./plan.schema.json\nversion: 1\nsampling:\n  sequential: {healthy: 90%, regressed: 70%}\ntasks:\n  - id: t\n    run: 'true'\n    timeout: 1m30s\n  - id: d\n    run: 'true'\n    sampling:\n      design: {healthy: 0.9, regressed: 0.7}\n",
    );
    let v: serde_json::Value = serde_json::from_slice(
        &gate()
            .current_dir(f.dir.path())
            .args(["check", "plan.yaml", "--format", "json"])
            .output()
            .expect("runs")
            .stdout,
    )
    .expect("JSON");
    let seq = &v["tasks"][0]["sampling"]["sequential"];
    assert_eq!(seq["healthy"], 0.9);
    assert_eq!(seq["regressed"], 0.7);
    assert_eq!(seq["alpha"], 0.05);
    assert_eq!(seq["beta"], 0.1);
    // `rule:` is optional in `design:` and means a single plan.
    assert_eq!(v["tasks"][1]["sampling"]["single"]["n"], 33);
    assert_eq!(v["tasks"][1]["sampling"]["single"]["c"], 6);
}

#[test]
fn percent_rates_on_the_command_line() {
    let a = crate::common::json_of(
        "plan",
        &["--healthy", "90%", "--regressed", "70%", "--alpha", "5%"],
    );
    let b = crate::common::json_of("plan", &["--healthy", "0.9", "--regressed", "0.7"]);
    assert_eq!(a, b);
    gate()
        .args(["plan", "--healthy", "ninety", "--regressed", "0.7"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid rate `ninety`: expected a fraction such as `0.9` or a percentage such as `90%`",
        ));
}

#[test]
fn committed_schemas_equal_the_generated_ones() {
    for (which, file) in [
        ("plan", "schemas/plan.schema.json"),
        ("report", "schemas/report.schema.json"),
    ] {
        let out = gate().args(["schema", which]).output().expect("runs");
        assert!(out.status.success());
        let committed = std::fs::read_to_string(file).expect("committed schema");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            committed,
            "{file} is stale: run `gate schema {which} > {file}`"
        );
    }
}

fn plan_validator() -> jsonschema::Validator {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string("schemas/plan.schema.json").unwrap())
            .unwrap();
    jsonschema::validator_for(&schema).expect("a valid JSON Schema")
}

fn yaml_to_json(text: &str) -> serde_json::Value {
    serde_saphyr::from_str(text).expect("YAML")
}

#[test]
fn every_bundled_plan_validates_against_the_plan_schema() {
    let validator = plan_validator();
    let mut seen = 0;
    for entry in glob::glob("plans/**/*.yaml").unwrap() {
        let path = entry.unwrap();
        let doc = yaml_to_json(&std::fs::read_to_string(&path).unwrap());
        let errors: Vec<String> = validator.iter_errors(&doc).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        seen += 1;
    }
    assert!(seen >= 5, "found {seen} bundled plans");
    // `gate init`'s plan validates too.
    let dir = project(&[("pytest.ini", "[pytest]\n")]);
    let text = init(dir.path());
    assert!(validator.is_valid(&yaml_to_json(&text)));
}

#[test]
fn an_unknown_key_fails_the_plan_schema() {
    let validator = plan_validator();
    let good = yaml_to_json(
        "$schema: ./plan.schema.json\nversion: 1\nsampling: {design: {healthy: 90%, regressed: 0.7}}\ntasks:\n  - id: t\n    run: [pytest, -x]\n    timeout: 1m30s\npolicy: {harness_exit_codes: [4, 5]}\n",
    );
    assert!(validator.is_valid(&good));
    for bad in [
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: x\n    retires: 2\n",
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: x\npolicy: {jbos: 2}\n",
        "version: 1\nsampling: {singel: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: x\n",
        "version: 1\ntasks:\n  - id: t\n",
        "version: 1\nsampling: {single: {n: 0, c: 0}}\ntasks:\n  - id: t\n    run: x\n",
    ] {
        assert!(!validator.is_valid(&yaml_to_json(bad)), "{bad}");
    }
}

#[test]
fn completions_and_man_page_are_generated_from_the_cli() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        gate()
            .args(["completions", shell])
            .assert()
            .success()
            .stdout(predicate::str::contains("check").and(predicate::str::contains("init")));
    }
    gate()
        .args(["completions", "tcsh"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("possible values"));
    gate()
        .arg("man")
        .assert()
        .success()
        .stdout(predicate::str::starts_with(".ie").and(predicate::str::contains(".TH gate 1")));
}

#[test]
fn a_declared_harness_exit_code_is_a_harness_error_not_seven_fails() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 7, c: 1}}\ntasks:\n  - id: typo\n    run: 'exit 5'\npolicy: {harness_exit_codes: [4, 5]}\n",
    );
    f.run(&[])
        .code(4)
        .stdout(predicate::str::contains("HARNESS ERROR"))
        .stdout(predicate::str::contains(
            "run exited 5, a declared harness exit code",
        ));
    let rows = crate::common::attempts(&f.ledger());
    assert_eq!(rows.len(), 1, "the first harness error stops the run");
    // Without the declaration the same exit code is an ordinary failure.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 7, c: 1}}\ntasks:\n  - id: typo\n    run: 'exit 5'\n",
    );
    f.run(&[]).code(1);
}

#[test]
fn harness_exit_codes_cannot_hold_0_or_a_transport_code() {
    for (policy, expected) in [
        (
            "{harness_exit_codes: [0]}",
            "plan.yaml:6:31: `policy.harness_exit_codes` cannot contain 0",
        ),
        (
            "{harness_exit_codes: [75], transport: {exit_codes: [75]}}",
            "exit code 75 is both in `policy.harness_exit_codes` and in `policy.transport.exit_codes`",
        ),
    ] {
        let f = Fixture::new(&format!(
            "version: 1\nsampling: {{single: {{n: 7, c: 1}}}}\ntasks:\n  - id: t\n    run: 'true'\npolicy: {policy}\n"
        ));
        gate()
            .current_dir(f.dir.path())
            .args(["check", "plan.yaml"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(expected));
    }
}

const TWO_OF_FIVE: &str = "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'test $GATE_TRIAL -ne 2'\n";

#[test]
fn json_dash_writes_the_report_to_stdout_and_the_summary_to_stderr() {
    let f = Fixture::new(TWO_OF_FIVE);
    let out = f.command(&["--json", "-"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("stdout is the JSON");
    assert_eq!(v["verdict"], "PASS");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("t  PASS: 4 passes reach the 4 needed"),
        "{err}"
    );
    assert!(err.contains("ledger: out/ledger.jsonl"), "{err}");
    // `gate report` does the same, and JUnit to stdout is the XML alone.
    let out = crate::common::gate()
        .current_dir(f.dir.path())
        .args([
            "report",
            "out/ledger.jsonl",
            "--no-step-summary",
            "--junit",
            "-",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .expect("runs");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("<?xml"));
    assert!(String::from_utf8_lossy(&out.stderr).contains("gate  PASS"));
}

#[test]
fn only_one_report_may_go_to_stdout() {
    let f = Fixture::new(TWO_OF_FIVE);
    f.run(&["--json", "-", "--junit", "-"])
        .code(2)
        .stderr(predicate::str::contains(
            "only one report can go to stdout, but --json and --junit are both `-`",
        ));
    assert!(!f.ledger_path().exists(), "refused before any trial");
}

#[test]
fn quiet_prints_verdicts_only_and_color_follows_the_flag_and_no_color() {
    let f = Fixture::new(TWO_OF_FIVE);
    f.run(&["--quiet"])
        .success()
        .stdout(predicate::eq(
            "t  PASS: 4 passes reach the 4 needed; at most 1 of 5 may fail (after 5 trials)\ngate  PASS (exit 0) · 1 task\nledger: out/ledger.jsonl\n",
        ))
        .stderr(predicate::str::contains("#001").not());
    f.run(&["--color", "always"])
        .success()
        .stdout(predicate::str::contains(
            "t  \u{1b}[1;32mPASS\u{1b}[0m: 4 passes",
        ));
    // Not a terminal: `auto` means no colour; NO_COLOR keeps it off; `never` too.
    for args in [&["--color", "auto"][..], &["--color", "never"][..]] {
        f.command(args)
            .env("NO_COLOR", "1")
            .assert()
            .success()
            .stdout(predicate::str::contains("\u{1b}[").not());
    }
}

#[test]
fn verbose_prints_each_tasks_rule_before_it_runs() {
    let f = Fixture::new(TWO_OF_FIVE);
    f.run(&["--verbose"])
        .success()
        .stderr(predicate::str::contains(
            "t: 5 trials, pass if at most 1 fail",
        ));
}

/// Finding (new-user trial): dorny/test-reporter showed "FAIL: FAIL: …", and JUnit cases had
/// no location for annotation reporters.
#[test]
fn junit_cases_point_at_the_task_line_and_the_message_does_not_repeat_the_verdict() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 5, c: 0}}\ntasks:\n  - id: ok\n    run: 'true'\n  - id: flaky\n    run: 'test $GATE_TRIAL -ne 2'\n",
    );
    f.run(&["--junit", "out/junit.xml"]).code(1);
    let xml = std::fs::read_to_string(f.path("out/junit.xml")).unwrap();
    assert!(
        xml.contains(r#"<testcase name="flaky: verdict" classname="flaky" time="#),
        "{xml}"
    );
    let back = quick_junit::Report::deserialize_from_str(&xml).unwrap();
    let flaky = back
        .test_suites
        .iter()
        .find(|s| s.name.as_str() == "flaky")
        .unwrap();
    for case in &flaky.test_cases {
        assert_eq!(
            case.extra.get("file").map(|v| v.as_str()),
            Some("plan.yaml")
        );
        assert_eq!(case.extra.get("line").map(|v| v.as_str()), Some("6"));
    }
    let ok = back
        .test_suites
        .iter()
        .find(|s| s.name.as_str() == "ok")
        .unwrap();
    assert_eq!(
        ok.test_cases[0].extra.get("line").map(|v| v.as_str()),
        Some("4")
    );
    match &flaky.test_cases[0].status {
        quick_junit::TestCaseStatus::NonSuccess { message, ty, .. } => {
            assert_eq!(ty.as_deref(), Some("FAIL"));
            let message = message.as_deref().unwrap();
            assert!(!message.starts_with("FAIL"), "{message}");
            assert!(
                message.contains("failures exceed") || message.contains("failure"),
                "{message}"
            );
        }
        other => panic!("verdict case is not a failure: {other:?}"),
    }
}

/// Finding (new-user trial): the failing trial's log was nowhere to be seen.
#[test]
fn a_task_with_failures_names_its_first_failures_log_and_shows_a_redacted_excerpt() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'echo progress; echo \"auth failed for $API_TOKEN\" >&2; test $GATE_TRIAL -ne 3'\n",
    );
    let out = f
        .command(&[])
        .env("API_TOKEN", "sk-very-secret")
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("  first fail #003: run exited 1\n"), "{text}");
    assert!(text.contains("    | auth failed for ***\n"), "{text}");
    assert!(!text.contains("sk-very-secret"));
    let log_line = text
        .lines()
        .find_map(|l| l.strip_prefix("  log        "))
        .expect("a log line");
    assert!(log_line.ends_with("logs/t/0003-1.log"), "{log_line}");
    assert!(f.path(log_line).is_file(), "{log_line} exists");
    // Recomputed where the logs are gone, the summary names no missing file.
    std::fs::remove_dir_all(f.path("out/runs")).unwrap();
    gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl", "--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .success()
        .stdout(predicate::str::contains("first fail #003"))
        .stdout(predicate::str::contains("  log  ").not());
}

/// Finding (new-user trial): the mermaid OC chart put 0.9, 0.95 and 0.99 at even steps, and
/// its line was hard to see on GitHub's dark theme.
#[test]
fn the_mermaid_oc_chart_has_a_numeric_evenly_spaced_x_axis_and_a_visible_colour() {
    let f = Fixture::new(
        "version: 1\nsampling: {design: {healthy: 0.93, regressed: 0.71}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    let out = f.command(&["--summary", "-"]).output().expect("runs");
    let md = String::from_utf8_lossy(&out.stdout);
    let chart = md.split("```mermaid\n").nth(1).expect("a mermaid chart");
    let chart = chart.split("```").next().unwrap();
    assert!(
        chart.contains("\"plotColorPalette\": \"#e8590c\""),
        "{chart}"
    );
    let axis = chart
        .lines()
        .find_map(|l| l.trim().strip_prefix("x-axis \"true success rate\" "))
        .expect("x-axis");
    let (lo, hi) = axis.split_once(" --> ").expect("a numeric range");
    let (lo, hi): (f64, f64) = (lo.parse().unwrap(), hi.parse().unwrap());
    let line = chart
        .lines()
        .find_map(|l| l.trim().strip_prefix("line ["))
        .unwrap();
    let values = line.trim_end_matches(']').split(", ").count();
    // One value per 0.05 step from lo to hi: the 0.93 and 0.71 of the plan are not squeezed in.
    assert_eq!(values, ((hi - lo) / 0.05).round() as usize + 1, "{chart}");
    for end in [lo, hi] {
        assert!((end * 20.0 - (end * 20.0).round()).abs() < 1e-9, "{chart}");
    }
}

/// The complete example of docs/plan-file.md loads, and validates against the schema.
#[test]
fn the_plan_file_reference_example_loads_and_validates() {
    let doc = std::fs::read_to_string("docs/plan-file.md").expect("docs/plan-file.md");
    let example = doc
        .split("<!-- plan-file:example -->\n```yaml\n")
        .nth(1)
        .and_then(|rest| rest.split("```\n<!-- /plan-file:example -->").next())
        .expect("the example between its markers");
    let dir = project(&[("data/booking.json", "{}\n"), ("agents/.keep", "")]);
    std::fs::write(dir.path().join("plan.yaml"), example).unwrap();
    gate()
        .current_dir(dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains("plan.yaml: ok · 1 task"));
    assert!(plan_validator().is_valid(&yaml_to_json(example)));
}

#[test]
fn check_does_not_print_a_task_id_as_a_workflow_command() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: '::error::forged'\n    run: 'true'\n",
    );
    let out = gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    assert!(text.contains("::error::forged"), "{text}");
    for line in text.lines() {
        assert!(!line.trim_start().starts_with("::"), "{line}");
    }
}

/// A `python3` on PATH that exits with `code` whatever it is asked (stands in for a Python
/// with or without pytest).
fn fake_python(code: i32) -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let bin = tempfile::tempdir().expect("temp dir");
    let p = bin.path().join("python3");
    std::fs::write(&p, format!("#!/bin/sh\nexit {code}\n")).expect("write");
    std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    bin
}

#[test]
fn init_warns_when_pytest_is_not_importable() {
    for (code, warned) in [(1, true), (0, false)] {
        let dir = project(&[(
            "tests/test_agent.py",
            "def test_refund():\n    assert True\n",
        )]);
        let bin = fake_python(code);
        let path = format!(
            "{}:{}",
            bin.path().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = gate()
            .current_dir(dir.path())
            .env("PATH", path)
            .arg("init")
            .assert()
            .success()
            .get_output()
            .stderr
            .clone();
        let stderr = String::from_utf8(out).unwrap();
        assert_eq!(stderr.contains("pip install pytest"), warned, "{stderr}");
    }
}
