//! `gate init` for suite runners (Jest, Vitest, mocha, Playwright, Go): what it detects, the
//! plan it writes (a `suite:` task), and — where the runner is installed — the printed `gate run` run
//! end to end on a suite whose outcomes follow an invocation counter, so every verdict is
//! known independently of the runner's output:
//!
//!   lookup   always passes
//!   refund   fails when k % 3 == 1   (k = the test's invocation count, from 1)
//!   cancel   fails when k % 4 != 0
//!
//! The JavaScript runners come from `scripts/node-runners.sh` (target/node-runners, which
//! scripts/test.sh fills); Go from `go` on PATH. A test whose runner is absent
//! says so on stderr and checks only what needs no runner.

use std::path::{Path, PathBuf};

use predicates::prelude::*;

use crate::common::{current_test, gate, skip_or_fail};

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

/// `gate init ARGS` in `dir`, which must succeed; returns its stdout.
fn init(dir: &Path, args: &[&str]) -> String {
    let out = gate()
        .current_dir(dir)
        .arg("init")
        .args(args)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    String::from_utf8(out).expect("utf-8")
}

/// The `gate run` command `gate init` printed (second line of `next:`), as a user copies it.
fn printed_command(stdout: &str) -> String {
    let line = stdout
        .lines()
        .map(str::trim_start)
        .find(|l| l.starts_with("gate run "))
        .unwrap_or_else(|| panic!("no `gate run` in:\n{stdout}"));
    line.split("   #").next().unwrap_or(line).trim().to_string()
}

/// The directory of the `gate` binary under test, to put first on PATH.
fn gate_dir() -> PathBuf {
    assert_cmd::cargo::cargo_bin("gate")
        .parent()
        .expect("bin dir")
        .to_path_buf()
}

/// scripts/node-runners.sh's node_modules, or `None` (saying why) when it is not installed.
fn node_runners() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/node-runners/node_modules");
    let ok = ["jest", "vitest", "mocha", "playwright"]
        .iter()
        .all(|b| dir.join(".bin").join(b).exists());
    if !ok {
        skip_or_fail(
            &current_test(),
            "node",
            &format!(
                "the end-to-end run: no JavaScript runners in {} (run scripts/node-runners.sh)",
                dir.display()
            ),
        );
        return None;
    }
    Some(dir)
}

/// Whether `cmd` runs here (`cmd --version`-like probe), saying why not.
fn have(cmd: &str, arg: &str) -> bool {
    let ok = std::process::Command::new(cmd)
        .arg(arg)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        skip_or_fail(
            &current_test(),
            cmd,
            &format!("the end-to-end run: `{cmd}` is not installed"),
        );
    }
    ok
}

/// Count a test's executions in `$GATE_FIXTURE_COUNTERS` (CommonJS).
const COUNTER_JS: &str = r#"const fs = require("node:fs");
const path = require("node:path");
module.exports = function bump(name) {
  const file = path.join(process.env.GATE_FIXTURE_COUNTERS, name);
  const k = (fs.existsSync(file) ? parseInt(fs.readFileSync(file, "utf8"), 10) : 0) + 1;
  fs.writeFileSync(file, String(k));
  return k;
};
"#;

/// The three counter tests in one runner's syntax: `head` imports, `(open, close)` wraps the
/// group, `test` is the test function and `check(k, cond)` the assertion.
fn js_suite(head: &str, group: &str, test: &str, assert_ok: &str) -> String {
    format!(
        "{head}\n{group}(\"agent\", function () {{\n\
         {test}(\"lookup\", function () {{ bump(\"lookup\"); }});\n\
         {test}(\"refund\", function () {{ const k = bump(\"refund\"); {} }});\n\
         {test}(\"cancel\", function () {{ const k = bump(\"cancel\"); {} }});\n}});\n",
        assert_ok.replace("COND", "k % 3 !== 1"),
        assert_ok.replace("COND", "k % 4 === 0"),
    )
}

/// Run the printed command in `dir` with a small rule (`single: {n: 3, c: 1}`) in place of the
/// designed one, so the run is short; returns the JSON report. Truth by the counters: lookup
/// passes 2 of 2 (PASS), cancel fails its first 2 (FAIL), refund fails 1 of 3 (PASS).
fn run_printed(dir: &Path, stdout: &str) -> serde_json::Value {
    let plan = std::fs::read_to_string(dir.join("gate.yaml")).expect("plan");
    let start = plan.find("sampling:\n  design:").expect("design block");
    let end = plan[start..].find("\ntasks:").expect("tasks") + start;
    let small = format!(
        "{}sampling:\n  single: {{n: 3, c: 1}}\n{}",
        &plan[..start],
        &plan[end..]
    );
    std::fs::write(dir.join("gate.yaml"), small).expect("write plan");
    std::fs::create_dir_all(dir.join("counters")).expect("counters");
    let command = printed_command(stdout).replacen(
        "gate run ",
        "gate run --json report.json --no-step-summary ",
        1,
    );
    let path = format!(
        "{}:{}",
        gate_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(dir)
        .env("PATH", path)
        .env("GATE_FIXTURE_COUNTERS", dir.join("counters"))
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("CI")
        .output()
        .expect("sh");
    let text = crate::common::both(&out);
    assert_eq!(out.status.code(), Some(1), "{command}\n{text}");
    let report = std::fs::read_to_string(dir.join("report.json")).expect("report.json");
    serde_json::from_str(&report).expect("json")
}

/// Each task's (id, verdict), sorted.
fn verdicts(report: &serde_json::Value) -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = report["tasks"]
        .as_array()
        .expect("tasks")
        .iter()
        .map(|t| {
            (
                t["id"].as_str().unwrap_or("").to_string(),
                t["verdict"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    v.sort();
    v
}

/// The verdict of the one task whose id ends with `name`, case aside (Go's `TestLookup`).
fn verdict_of<'a>(v: &'a [(String, String)], name: &str) -> &'a str {
    let hits: Vec<&(String, String)> = v
        .iter()
        .filter(|(id, _)| id.to_lowercase().ends_with(name))
        .collect();
    assert_eq!(hits.len(), 1, "{name} in {v:?}");
    &hits[0].1
}

/// The counter truth of [`run_printed`].
fn assert_counter_truth(report: &serde_json::Value) {
    let v = verdicts(report);
    assert_eq!(v.len(), 3, "{v:?}");
    assert_eq!(verdict_of(&v, "lookup"), "PASS", "{v:?}");
    assert_eq!(verdict_of(&v, "refund"), "PASS", "{v:?}");
    assert_eq!(verdict_of(&v, "cancel"), "FAIL", "{v:?}");
}

/// A scratch JavaScript project: package.json, the counter, one test file, and node_modules
/// linked to scripts/node-runners.sh's when `linked`.
fn js_project(
    package: &str,
    test_file: &str,
    test: &str,
    linked: Option<&Path>,
) -> tempfile::TempDir {
    let dir = project(&[
        ("package.json", package),
        ("counter.js", COUNTER_JS),
        (test_file, test),
    ]);
    if let Some(modules) = linked {
        std::os::unix::fs::symlink(modules, dir.path().join("node_modules")).expect("link");
    }
    dir
}

/// Jest's counter suite.
fn jest_suite() -> String {
    js_suite(
        "const bump = require(\"../counter.js\");",
        "describe",
        "test",
        "expect(COND).toBe(true);",
    )
}

/// Finding: a Jest project was given a `node --test` plan; every trial failed to load
/// (`describe is not defined`) and the gate said FAIL, a false regression.
#[test]
fn jest_project_got_a_node_test_plan_whose_every_trial_failed_to_load() {
    let modules = node_runners();
    let dir = js_project(
        r#"{"name": "p", "private": true, "devDependencies": {"jest": "30.5.2", "jest-junit": "17.0.0"}, "scripts": {"test": "jest"}}"#,
        "test/agent.test.js",
        &jest_suite(),
        modules.as_deref(),
    );
    let out = init(dir.path(), &[]);
    let plan = std::fs::read_to_string(dir.path().join("gate.yaml")).expect("plan");
    assert!(out.contains("for a Jest project"), "{out}");
    assert!(
        !plan.contains("node --test") && !out.contains("node --test"),
        "{plan}"
    );
    assert!(plan.contains("npx --no -- jest --ci"), "{plan}");
    // jest-junit is told to record `invocations`, which shows `jest.retryTimes` retries.
    let props = std::fs::read_to_string(dir.path().join("junitTestCaseProperties.js"))
        .expect("properties file");
    assert!(props.contains("invocations: result.invocations"), "{props}");
    gate()
        .current_dir(dir.path())
        .args(["check", "gate.yaml"])
        .assert()
        .success();
    if modules.is_some() {
        assert_counter_truth(&run_printed(dir.path(), &out));
    }
}

#[test]
fn jest_is_detected_by_its_config_file_alone_and_retries_are_counted_by_invocations() {
    let modules = node_runners();
    let retried = jest_suite().replace(
        "describe(\"agent\"",
        "jest.retryTimes(2);\ndescribe(\"agent\"",
    );
    let dir = js_project(
        r#"{"name": "p", "private": true}"#,
        "agent.test.js",
        &retried.replace("../counter.js", "./counter.js"),
        modules.as_deref(),
    );
    std::fs::write(dir.path().join("jest.config.js"), "module.exports = {};\n").unwrap();
    let out = init(dir.path(), &[]);
    assert!(out.contains("for a Jest project"), "{out}");
    if modules.is_none() {
        return;
    }
    // With retries on, Jest reruns a failed test within the run (up to twice); gate grades
    // each run's first execution, read from `invocations`.
    let report = run_printed(dir.path(), &out);
    let v = verdicts(&report);
    assert_eq!(v.len(), 3, "{v:?}");
    // Simulate: each run executes a test until it passes, at most 3 times; the first
    // execution of each run is the trial.
    let truth = |fails: fn(u64) -> bool| {
        let (mut k, mut firsts) = (0u64, Vec::new());
        for _ in 0..3 {
            k += 1;
            firsts.push(fails(k));
            let mut tries = 1;
            while fails(k) && tries < 3 {
                k += 1;
                tries += 1;
            }
        }
        firsts
    };
    let decide = |firsts: Vec<bool>| {
        // single: {n: 3, c: 1}, curtailed.
        let mut f = 0;
        for (i, failed) in firsts.iter().enumerate() {
            f += u64::from(*failed);
            if f > 1 {
                return "FAIL";
            }
            if (i as u64 + 1 - f) >= 2 {
                return "PASS";
            }
        }
        "PASS"
    };
    assert_eq!(
        verdict_of(&v, "refund"),
        decide(truth(|k| k % 3 == 1)),
        "{v:?}"
    );
    assert_eq!(
        verdict_of(&v, "cancel"),
        decide(truth(|k| k % 4 != 0)),
        "{v:?}"
    );
    assert_eq!(verdict_of(&v, "lookup"), "PASS", "{v:?}");
}

#[test]
fn vitest_mocha_and_playwright_projects_get_their_own_suite_command_with_retries_off_and_read_as_json()
 {
    let modules = node_runners();
    // (package.json, test file, what init says, the suite, (command, format)).
    type Case = (
        &'static str,
        &'static str,
        &'static str,
        String,
        (&'static str, &'static str),
    );
    let cases: [Case; 3] = [
        (
            r#"{"name": "p", "private": true, "type": "module", "devDependencies": {"vitest": "4.1.12"}}"#,
            "test/agent.test.js",
            "for a Vitest project",
            js_suite(
                "import { describe, expect, test } from 'vitest';\nimport bump from '../counter.cjs';",
                "describe",
                "test",
                "expect(COND).toBe(true);",
            ),
            ("vitest run --retry=0 --reporter=json", "format: jest-json"),
        ),
        (
            r#"{"name": "p", "private": true, "devDependencies": {"mocha": "11.8.0"}}"#,
            "test/agent.test.js",
            "for a mocha project",
            js_suite(
                "const assert = require(\"node:assert\");\nconst bump = require(\"../counter.js\");",
                "describe",
                "it",
                "assert.ok(COND, `invocation ${k}`);",
            ),
            ("mocha --retries 0 --reporter json", "format: mocha-json"),
        ),
        (
            r#"{"name": "p", "private": true, "scripts": {"e2e": "playwright test"}}"#,
            "tests/agent.spec.js",
            "for a Playwright project",
            js_suite(
                "const { test, expect } = require(\"@playwright/test\");\nconst bump = require(\"../counter.js\");",
                "test.describe",
                "test",
                "expect(COND).toBe(true);",
            ),
            (
                "playwright test --retries=0 --reporter=json",
                "format: playwright-json",
            ),
        ),
    ];
    for (package, file, says, suite, (command, format)) in cases {
        let dir = js_project(package, file, &suite, modules.as_deref());
        // Vitest's ESM test imports the CommonJS counter under a `.cjs` name.
        std::fs::write(dir.path().join("counter.cjs"), COUNTER_JS).unwrap();
        let out = init(dir.path(), &[]);
        let plan = std::fs::read_to_string(dir.path().join("gate.yaml")).unwrap();
        assert!(out.contains(says), "{out}");
        assert!(plan.contains(command), "{plan}");
        // Their JSON reports, which show a retry their JUnit hides: nothing is taken on the
        // command's word.
        assert!(plan.contains(format), "{plan}");
        assert!(!plan.contains("assume_retries_off"), "{plan}");
        assert!(!plan.contains("node --test"), "{plan}");
        if modules.is_some() {
            assert_counter_truth(&run_printed(dir.path(), &out));
        }
    }
}

#[test]
fn a_project_with_two_runners_gets_the_first_and_is_told_of_the_other() {
    let dir = project(&[
        (
            "package.json",
            r#"{"devDependencies": {"vitest": "4", "@playwright/test": "1"}}"#,
        ),
        ("playwright.config.ts", "export default {};\n"),
    ]);
    let out = init(dir.path(), &[]);
    assert!(out.contains("for a Vitest project"), "{out}");
    assert!(
        out.contains(
            "also found: Playwright (`gate init --kind playwright -o gate-playwright.yaml`)"
        ),
        "{out}"
    );
    // A plain package.json is still node's own runner.
    let dir = project(&[("package.json", r#"{"scripts": {"test": "node --test"}}"#)]);
    let out = init(dir.path(), &[]);
    assert!(out.contains("for a node project"), "{out}");
}

/// The Go suite: one package with the counter tests.
fn go_project() -> tempfile::TempDir {
    let test = r#"package agent

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// bump counts this execution of test name and returns the count, from 1.
func bump(t *testing.T, name string) int {
	path := filepath.Join(os.Getenv("GATE_FIXTURE_COUNTERS"), name)
	k := 1
	if b, err := os.ReadFile(path); err == nil {
		n, _ := strconv.Atoi(string(b))
		k = n + 1
	}
	if err := os.WriteFile(path, []byte(strconv.Itoa(k)), 0o644); err != nil {
		t.Fatal(err)
	}
	return k
}

func TestLookup(t *testing.T) { bump(t, "lookup") }

func TestRefund(t *testing.T) {
	if k := bump(t, "refund"); k%3 == 1 {
		t.Fatalf("refund invocation %d", k)
	}
}

func TestCancel(t *testing.T) {
	if k := bump(t, "cancel"); k%4 != 0 {
		t.Fatalf("cancel invocation %d", k)
	}
}
"#;
    project(&[
        ("go.mod", "module example.com/agent\n\ngo 1.19\n"),
        ("agent_test.go", test),
    ])
}

#[test]
fn a_go_project_runs_its_suite_with_the_test_cache_off_end_to_end() {
    let dir = go_project();
    let out = init(dir.path(), &[]);
    assert!(out.contains("for a Go project"), "{out}");
    let plan = std::fs::read_to_string(dir.path().join("gate.yaml")).unwrap();
    assert!(
        plan.contains(r#"go test -count=1 -json "$@" ./..."#) && plan.contains("format: go-json"),
        "{plan}"
    );
    if have("go", "version") {
        assert_counter_truth(&run_printed(dir.path(), &out));
    }
}

/// A missing runner must be a harness error (exit 4) with one line naming what to install,
/// never a FAIL: `npx --no jest` exits 1 when jest is absent, the code of a failing suite.
#[test]
fn a_missing_runner_is_a_harness_error_never_a_fail() {
    let dir = js_project(
        r#"{"devDependencies": {"jest": "30"}}"#,
        "test/agent.test.js",
        &jest_suite(),
        None,
    );
    let out = init(dir.path(), &[]);
    let command = printed_command(&out);
    let path = format!(
        "{}:{}",
        gate_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = std::process::Command::new("sh")
        .arg("-c")
        .arg(&command)
        .current_dir(dir.path())
        .env("PATH", path)
        .env("npm_config_offline", "true")
        .env("GITHUB_STEP_SUMMARY", dir.path().join("summary.md"))
        .output()
        .expect("sh");
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(4), "{stderr}");
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(
        stdout.contains("exited 127")
            && format!("{stdout}{stderr}")
                .contains("gate: jest or jest-junit is not installed in this project"),
        "{stdout}{stderr}"
    );
    // The step summary says what the guard said, not only that the suite exited 127.
    let summary = std::fs::read_to_string(dir.path().join("summary.md")).expect("step summary");
    assert!(
        summary.contains("HARNESS ERROR")
            && summary.contains("> gate: jest or jest-junit is not installed in this project"),
        "{summary}"
    );
    // Go without go on PATH: the same.
    let dir = go_project();
    let out = init(dir.path(), &[]);
    // PATH holds only gate and sh.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink("/bin/sh", bin.join("sh")).unwrap();
    let run = std::process::Command::new("/bin/sh")
        .arg("-c")
        .arg(printed_command(&out))
        .current_dir(dir.path())
        .env(
            "PATH",
            format!("{}:{}", gate_dir().display(), bin.display()),
        )
        .output()
        .expect("sh");
    let out = crate::common::both(&run);
    assert_eq!(run.status.code(), Some(4), "{out}");
    assert!(
        out.contains("the suite exited 127, a declared harness exit code"),
        "{out}"
    );
}

/// pytest missing: `python3 -m pytest` exits 1 ("No module named pytest"), the code of a
/// failing test, so every trial of the old plan was graded a failure.
#[test]
fn a_pytest_plan_without_pytest_is_a_harness_error_not_a_fail() {
    let dir = project(&[(
        "tests/test_agent.py",
        "def test_refund():\n    assert True\n",
    )]);
    init(dir.path(), &[]);
    // A python3 on PATH that has no pytest: a wrapper that runs the real one isolated from
    // every site directory.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let python = bin.join("python3");
    std::fs::write(
        &python,
        "#!/bin/sh\nexec /usr/bin/env -u PYTHONPATH python3.real -I -S \"$@\"\n",
    )
    .unwrap();
    let real = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).exists());
    let Some(real) = real else {
        skip_or_fail(
            &current_test(),
            "python3",
            "no /usr/bin/python3 to hide pytest from",
        );
        return;
    };
    std::os::unix::fs::symlink(real, bin.join("python3.real")).unwrap();
    std::fs::set_permissions(&python, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    gate()
        .current_dir(dir.path())
        .args(["run", "gate.yaml", "--no-step-summary", "--shard", "1/11"])
        .env("PATH", format!("{}:/usr/bin:/bin", bin.display()))
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "the suite exited 127, a declared harness exit code",
        ));
}

/// `gate init -o DIR/gate.yaml`: the plan's commands run where the plan is, so it names the
/// project with `cwd:`, and the plan works when gate is started from anywhere else.
#[test]
fn init_output_in_another_dir_runs_its_test_from_there() {
    let dir = project(&[
        ("proj/package.json", "{\"type\": \"module\"}\n"),
        (
            "proj/test/refund.test.js",
            "import test from 'node:test';\ntest('refunds an order', () => {});\n",
        ),
    ]);
    std::fs::create_dir_all(dir.path().join("ci")).unwrap();
    let out = init(dir.path(), &["--dir", "proj", "-o", "ci/gate.yaml"]);
    assert!(out.contains("wrote ci/gate.yaml"), "{out}");
    let plan = std::fs::read_to_string(dir.path().join("ci/gate.yaml")).unwrap();
    assert!(plan.contains("    cwd: \"../proj\""), "{plan}");
    let elsewhere = tempfile::tempdir().unwrap();
    gate()
        .current_dir(elsewhere.path())
        .arg("run")
        .arg(dir.path().join("ci/gate.yaml"))
        .args([
            "--shard",
            "1/11",
            "--no-step-summary",
            "--ledger",
            "l/ledger.jsonl",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "trials     run 3 · passed 3 · failed 0",
        ));
    // A suite runner's plan names the project with `cwd:` too.
    let dir = go_project();
    std::fs::create_dir_all(dir.path().join("ci")).unwrap();
    let out = init(dir.path(), &["-o", "ci/gate.yaml"]);
    assert!(out.contains("gate run ci/gate.yaml"), "{out}");
    let plan = std::fs::read_to_string(dir.path().join("ci/gate.yaml")).unwrap();
    assert!(plan.contains("    cwd: \"..\""), "{plan}");
}

// ------------------------------------------------------- the JUnit files the commands write

/// tests/fixtures/junit/, written by scripts/gen-junit-fixtures.sh with the real runners.
fn junit_fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/junit")
        .join(rel)
}

/// mocha-junit-reporter's files (5 runs, `--retries 0`) are read against the counters:
/// refund fails runs 1 and 4, cancel runs 1, 2, 3 and 5, lookup none; test ids are the full
/// titles (the reporter puts the bare title in `classname`).
#[test]
fn mocha_junit_is_recognised_and_read_against_its_counter_truth() {
    let runs: Vec<PathBuf> = (1..=5)
        .map(|i| junit_fixture(&format!("mocha-runs/run-{i}.xml")))
        .collect();
    let out = tempfile::tempdir().unwrap();
    gate()
        .arg("ingest")
        .args(&runs)
        .args([
            "--single",
            "5,1",
            "--assume-retries-off",
            "--no-step-summary",
        ])
        .arg("--ledger")
        .arg(out.path().join("ledger.jsonl"))
        .arg("--json")
        .arg(out.path().join("report.json"))
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.path().join("report.json")).unwrap())
            .unwrap();
    let v = verdicts(&report);
    assert_eq!(
        v,
        [
            ("agent cancel".to_string(), "FAIL".to_string()),
            ("agent lookup".to_string(), "PASS".to_string()),
            ("agent refund".to_string(), "FAIL".to_string()),
        ],
        "{report}"
    );
}

/// Finding: the refusals suggested `--assume-retries-off` before the runner's own setting.
/// Each names the setting to check first, then the format to use or why there is none, and
/// only then the flag.
#[test]
fn refusals_name_the_runners_own_retry_setting_before_assume_retries_off() {
    let evals = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/evals");
    let cases = [
        (junit_fixture("playwright-retries.xml"), "`retries: 0`"),
        (junit_fixture("jest-plain.xml"), "`jest.retryTimes`"),
        (evals.join("vitest/retry-2.xml"), "`--retry`"),
        (junit_fixture("mocha-retries.xml"), "`--retries 0`"),
    ];
    for (file, setting) in cases {
        let out = gate()
            .arg("ingest")
            .arg(&file)
            .args(["--single", "1,0", "--no-step-summary"])
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .code(2)
            .get_output()
            .stderr
            .clone();
        let err = String::from_utf8(out).unwrap();
        let at_setting = err
            .find(setting)
            .unwrap_or_else(|| panic!("{setting}: {err}"));
        let at_flag = err.find("--assume-retries-off").expect("the flag");
        assert!(at_setting < at_flag, "{err}");
        assert!(
            err.contains("invocations") || err.contains("gate ingest --format"),
            "names the native format gate reads instead: {err}"
        );
        if let Some(at_native) = err.find("gate ingest --format") {
            assert!(
                at_native < at_flag,
                "the native format before the flag: {err}"
            );
        }
    }
}

// ------------------------------------------- only the cases gate asks for ($GATE_SUITE_CASES)

/// The `suite.run` block of the plan `gate init` wrote in `dir`, as `sh` runs it.
fn suite_script(dir: &Path) -> String {
    let plan = std::fs::read_to_string(dir.join("gate.yaml")).expect("plan");
    let start = plan
        .find("      run: |\n")
        .unwrap_or_else(|| panic!("no suite `run: |` block in:\n{plan}"))
        + "      run: |\n".len();
    let end = plan[start..]
        .find("      harness_exit_codes:")
        .expect("harness_exit_codes")
        + start;
    plan[start..end]
        .lines()
        .map(|l| l.strip_prefix("        ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Run the plan's suite command once in `dir` as gate does, asked for `cases` (named as gate
/// names them; none: every case) through `$GATE_SUITE_CASES`; returns each counter test's
/// executions.
fn run_asked(dir: &Path, cases: &[&str]) -> std::collections::BTreeMap<String, String> {
    let work = tempfile::tempdir().expect("temp dir");
    let counters = work.path().join("counters");
    std::fs::create_dir(&counters).expect("counters");
    let list = work.path().join("cases.txt");
    let text: String = cases.iter().map(|c| format!("{c}\n")).collect();
    std::fs::write(&list, text).expect("cases");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(suite_script(dir))
        .current_dir(dir)
        .env("GATE_JUNIT", work.path().join("results"))
        .env("GATE_SUITE_CASES", &list)
        .env("GATE_FIXTURE_COUNTERS", &counters)
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("CI")
        .output()
        .expect("sh");
    assert!(
        work.path().join("results").exists(),
        "no results written:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_dir(&counters)
        .expect("counters")
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read_to_string(e.path()).expect("count"),
            )
        })
        .collect()
}

/// Every counter test once, for an empty list; only the `asked` ones for a list of two.
fn assert_only_asked_run(dir: &Path, asked: [&str; 2], ran: [&str; 2]) {
    let all = run_asked(dir, &[]);
    assert_eq!(
        all.keys().map(String::as_str).collect::<Vec<_>>(),
        ["cancel", "lookup", "refund"],
        "an empty list runs every case"
    );
    assert!(all.values().all(|k| k == "1"), "{all:?}");
    let some = run_asked(dir, &asked);
    let mut want = ran.to_vec();
    want.sort_unstable();
    assert_eq!(
        some.keys().map(String::as_str).collect::<Vec<_>>(),
        want,
        "asked for {asked:?}: {some:?}"
    );
    assert!(some.values().all(|k| k == "1"), "{some:?}");
}

/// Issue 30: `gate init` wrote a one-test plan for pytest (it gated one arbitrary test), and
/// no plan it wrote passed `$GATE_SUITE_CASES` to the runner's filter, so decided tests ran
/// again. The pytest plan is a suite plan whose filter maps gate's case names (a test in a
/// class too) back to pytest's node ids.
#[test]
fn init_wrote_a_one_test_pytest_plan_and_decided_cases_ran_again() {
    let counter = "import os, pathlib\n\n\ndef bump(name):\n    p = pathlib.Path(os.environ[\"GATE_FIXTURE_COUNTERS\"]) / name\n    k = int(p.read_text()) + 1 if p.exists() else 1\n    p.write_text(str(k))\n    return k\n\n\n";
    let tests = format!(
        "{counter}def test_lookup():\n    bump(\"lookup\")\n\n\nclass TestOrders:\n    def test_refund(self):\n        bump(\"refund\")\n\n    def test_cancel(self):\n        bump(\"cancel\")\n"
    );
    let dir = project(&[("tests/test_agent.py", &tests)]);
    let out = init(dir.path(), &[]);
    assert!(
        out.contains("for a pytest project: every test case"),
        "{out}"
    );
    let plan = std::fs::read_to_string(dir.path().join("gate.yaml")).unwrap();
    assert!(
        plan.contains("-p no:randomly") && plan.contains("-p no:rerunfailures"),
        "{plan}"
    );
    if !have("python3", "--version") {
        return;
    }
    let importable = std::process::Command::new("python3")
        .args(["-c", "import pytest"])
        .status()
        .is_ok_and(|s| s.success());
    if !importable {
        skip_or_fail(&current_test(), "pytest", "python3 cannot import pytest");
        return;
    }
    assert_only_asked_run(
        dir.path(),
        [
            "tests.test_agent::test_lookup",
            "tests.test_agent.TestOrders::test_refund",
        ],
        ["lookup", "refund"],
    );
}

/// Issue 30: Cargo got a one-test `cargo test` plan; it now gets the nextest suite plan
/// (`--retries 0`, the `ci` profile's JUnit) whose `-E` filter runs only the cases asked for.
#[test]
fn init_wrote_a_one_test_cargo_plan_and_decided_cases_ran_again() {
    let flow = r#"fn bump(name: &str) {
    let p = std::path::Path::new(&std::env::var("GATE_FIXTURE_COUNTERS").unwrap()).join(name);
    let k: u32 = std::fs::read_to_string(&p).ok().and_then(|s| s.parse().ok()).unwrap_or(0) + 1;
    std::fs::write(&p, k.to_string()).unwrap();
}

#[test]
fn lookup() {
    bump("lookup");
}

mod orders {
    #[test]
    fn refund() {
        super::bump("refund");
    }

    #[test]
    fn cancel() {
        super::bump("cancel");
    }
}
"#;
    let dir = project(&[
        (
            "Cargo.toml",
            "[package]\nname = \"agent\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
        ),
        ("src/lib.rs", ""),
        ("tests/flow.rs", flow),
    ]);
    let out = init(dir.path(), &[]);
    assert!(
        out.contains("for a Cargo project: every test case"),
        "{out}"
    );
    let plan = std::fs::read_to_string(dir.path().join("gate.yaml")).unwrap();
    assert!(
        plan.contains("cargo nextest run --profile ci --retries 0"),
        "{plan}"
    );
    let profile = std::fs::read_to_string(dir.path().join(".config/nextest.toml")).unwrap();
    assert!(profile.contains("[profile.ci.junit]"), "{profile}");
    if !have("cargo-nextest", "--version") {
        return;
    }
    assert_only_asked_run(
        dir.path(),
        ["agent::flow::lookup", "agent::flow::orders::refund"],
        ["lookup", "refund"],
    );
}

/// Issue 30: the JavaScript and Go plans ran the whole suite on every run; each passes the
/// cases asked for to its runner's own filter (`-t`, `--grep`, `-run`).
#[test]
fn js_and_go_plans_ignored_gate_suite_cases_and_ran_decided_tests_again() {
    let modules = node_runners();
    if let Some(modules) = modules.as_deref() {
        let jest = js_project(
            r#"{"name": "p", "private": true, "devDependencies": {"jest": "30"}}"#,
            "test/agent.test.js",
            &jest_suite(),
            Some(modules),
        );
        init(jest.path(), &[]);
        assert_only_asked_run(
            jest.path(),
            ["agent lookup", "agent refund"],
            ["lookup", "refund"],
        );
        type Case = (&'static str, &'static str, String, [&'static str; 2]);
        let cases: [Case; 3] = [
            (
                r#"{"name": "p", "private": true, "type": "module", "devDependencies": {"vitest": "4.1.12"}}"#,
                "test/agent.test.js",
                js_suite(
                    "import { describe, expect, test } from 'vitest';\nimport bump from '../counter.cjs';",
                    "describe",
                    "test",
                    "expect(COND).toBe(true);",
                ),
                [
                    "test/agent.test.js::agent > lookup",
                    "test/agent.test.js::agent > refund",
                ],
            ),
            (
                r#"{"name": "p", "private": true, "devDependencies": {"mocha": "11.8.0"}}"#,
                "test/agent.test.js",
                js_suite(
                    "const assert = require(\"node:assert\");\nconst bump = require(\"../counter.js\");",
                    "describe",
                    "it",
                    "assert.ok(COND, `invocation ${k}`);",
                ),
                [
                    "test/agent.test.js::agent lookup",
                    "test/agent.test.js::agent refund",
                ],
            ),
            (
                r#"{"name": "p", "private": true, "scripts": {"e2e": "playwright test"}}"#,
                "tests/agent.spec.js",
                js_suite(
                    "const { test, expect } = require(\"@playwright/test\");\nconst bump = require(\"../counter.js\");",
                    "test.describe",
                    "test",
                    "expect(COND).toBe(true);",
                ),
                [
                    "tests/agent.spec.js::agent › lookup",
                    "tests/agent.spec.js::agent › refund",
                ],
            ),
        ];
        for (package, file, suite, asked) in cases {
            let dir = js_project(package, file, &suite, Some(modules));
            std::fs::write(dir.path().join("counter.cjs"), COUNTER_JS).unwrap();
            init(dir.path(), &[]);
            assert_only_asked_run(dir.path(), asked, ["lookup", "refund"]);
        }
    }
    if have("go", "version") {
        let dir = go_project();
        init(dir.path(), &[]);
        assert_only_asked_run(
            dir.path(),
            [
                "example.com/agent::TestLookup",
                "example.com/agent::TestRefund",
            ],
            ["lookup", "refund"],
        );
    }
}
