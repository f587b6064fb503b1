//! Review 47, redaction in `gate ingest` (docs/trust.md, "Review 47 (redaction)"): two test
//! ids merged into one by redaction (c02), and secrets that reached the terminal, the ledger
//! and the reports through a refusal's text (c03, c04), a result file's name (c05) and JSON's
//! escaping (c09). Each test is named after the break it pins.

use std::path::Path;

use crate::common::*;

/// `gate ingest --single N,C --ledger l.jsonl FILES…` in `dir` with `env` set, outside GitHub
/// Actions; its output.
fn ingest(dir: &Path, single: &str, env: &[(&str, &str)], extra: &[&str]) -> std::process::Output {
    let mut cmd = gate();
    cmd.current_dir(dir)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .args([
            "ingest",
            "--single",
            single,
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
        ])
        .args(extra);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

/// Assert that none of `secrets` is in `text` (named `what` in the failure).
fn no_secret(what: &str, text: &str, secrets: &[&str]) {
    for s in secrets {
        assert!(!text.contains(s), "{s} in {what}:\n{text}");
    }
}

const KEY_A: &str = "sk-live-4f9a2c7e1b8d3f60aa51";
const KEY_B: &str = "sk-live-9c3e7a1f5d2b8e40cc27";

/// A pytest run of `test_auth` over the credentials `keys`, the one over [`KEY_B`] failing.
fn pytest_run(i: u32, keys: &[&str]) -> String {
    let cases: String = keys
        .iter()
        .map(|k| {
            let failure = if *k == KEY_B {
                "<failure message=\"AssertionError: 401\">assert 401 == 200</failure>"
            } else {
                ""
            };
            format!("<testcase classname=\"test_api\" name=\"test_auth[{k}]\" time=\"0.10{i}\">{failure}</testcase>")
        })
        .collect();
    format!(
        "<testsuites name=\"pytest tests\"><testsuite name=\"pytest\" tests=\"{}\" \
         timestamp=\"2026-12-01T10:0{i}:00.1\" hostname=\"ci\">{cases}</testsuite></testsuites>",
        keys.len()
    )
}

#[test]
fn c02_two_ids_that_differ_only_by_a_secret_are_merged_into_one_passing_test() {
    // Review 47, c02: test_auth[KEY_A] (passes) and test_auth[KEY_B] (always fails) both read
    // test_auth[***] once redacted, after the reader's duplicate checks: ingest merged them
    // into one test and published PASS. Now refused, in one file and across files.
    let d = tempfile::tempdir().unwrap();
    let env = [("API_KEY_A", KEY_A), ("API_KEY_B", KEY_B)];
    for i in 1..=3 {
        std::fs::write(
            d.path().join(format!("run-{i}.xml")),
            pytest_run(i, &[KEY_A, KEY_B]),
        )
        .unwrap();
    }
    let files = ["run-1.xml", "run-2.xml", "run-3.xml"];
    // Without the secrets in the environment the failing parameter fails the gate.
    assert_eq!(ingest(d.path(), "3,1", &[], &files).status.code(), Some(1));
    let out = ingest(d.path(), "3,1", &env, &files);
    let text = both(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("run-1.xml: different test ids (2 of them) in this file all read `test_api::test_auth[***]` once secrets are redacted"),
        "{text}"
    );
    no_secret("the refusal", &text, &[KEY_A, KEY_B]);
    // Across files: one file per credential.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.xml"), pytest_run(1, &[KEY_A])).unwrap();
    std::fs::write(d.path().join("b.xml"), pytest_run(2, &[KEY_B])).unwrap();
    let out = ingest(d.path(), "2,1", &env, &["a.xml", "b.xml"]);
    let text = both(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains(
            "b.xml: different test ids here and in a.xml all read `test_api::test_auth[***]`"
        ),
        "{text}"
    );
    no_secret("the refusal", &text, &[KEY_A, KEY_B]);
    // One secret in every file's id is one test, as before: judged, and redacted.
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("a.xml"), pytest_run(1, &[KEY_A])).unwrap();
    std::fs::write(d.path().join("b.xml"), pytest_run(2, &[KEY_A])).unwrap();
    let out = ingest(d.path(), "2,0", &env, &["a.xml", "b.xml"]);
    let text = both(&out);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("test_api::test_auth[***]"), "{text}");
    no_secret("the output", &text, &[KEY_A]);
}

#[test]
fn c03_a_refusal_of_colliding_ids_quotes_the_secret_in_them() {
    // Review 47, c03: the reader's SameId refusal (one file) and check_same_ids (two files)
    // quoted the raw classname and name, secret and all, on stderr.
    let token = "ghp_R3vi3wS3cr3tT0k3nValue4242";
    let env = [("DEPLOY_TOKEN", token)];
    let d = tempfile::tempdir().unwrap();
    let case = |class: &str, name: &str| {
        format!("<testcase classname=\"{class}\" name=\"{name}[{token}]\" time=\"0.1\"/>")
    };
    let file = |uuid: &str, cases: &[String]| {
        format!(
            "<testsuites name=\"nextest-run\" uuid=\"{uuid}\"><testsuite name=\"a\" tests=\"{}\" failures=\"0\">{}</testsuite></testsuites>",
            cases.len(),
            cases.concat()
        )
    };
    let uuid = |c: char| format!("{}-2222-3333-4444-555555555555", c.to_string().repeat(8));
    std::fs::write(
        d.path().join("one.xml"),
        file(&uuid('1'), &[case("a", "b::c"), case("a::b", "c")]),
    )
    .unwrap();
    std::fs::write(
        d.path().join("f1.xml"),
        file(&uuid('a'), &[case("a", "b::c")]),
    )
    .unwrap();
    std::fs::write(
        d.path().join("f2.xml"),
        file(&uuid('b'), &[case("a::b", "c")]),
    )
    .unwrap();
    for (files, single, says) in [
        (
            &["one.xml"][..],
            "1,0",
            "one.xml:1: test case `c[***]` (classname `a::b`)",
        ),
        (
            &["f1.xml", "f2.xml"][..],
            "2,0",
            "f2.xml: test case `c[***]` (classname `a::b`)",
        ),
    ] {
        let out = ingest(d.path(), single, &env, files);
        let text = both(&out);
        assert_eq!(out.status.code(), Some(2), "{text}");
        assert!(text.contains(says), "{text}");
        no_secret("the refusal", &text, &[token]);
    }
}

#[test]
fn c04_a_reader_refusal_quotes_the_runner_error_with_its_secret() {
    // Review 47, c04: mocha's failed hook, Jest's file that failed to load and Inspect's
    // errored eval are refused quoting the runner's error text, which held the connection
    // string or the API key; `gate ingest` and `gate explain --junit` printed it as it was.
    let url = "postgres://ci:Pg-s3cr3t-9f8e7d6c5b4a@db.internal:5432/app";
    let key = "sk-proj-Qw3rTy8uIo1pAsDfGh6jKl2zXc";
    let env = [("DATABASE_URL", url), ("OPENAI_API_KEY", key)];
    let secrets = ["Pg-s3cr3t-9f8e7d6c5b4a", key];
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/js-json");
    let json = |name: &str| -> serde_json::Value {
        serde_json::from_str(&read(&fixtures.join(name))).unwrap()
    };
    let d = tempfile::tempdir().unwrap();
    let mut mocha = json("mocha-hook-failed.json");
    mocha["failures"][0]["err"]["message"] = format!("connect failed: {url}").into();
    std::fs::write(d.path().join("mocha.json"), mocha.to_string()).unwrap();
    let mut jest = json("jest-load-failed.json");
    for s in jest["testResults"].as_array_mut().unwrap() {
        if s["status"] == "failed" {
            s["message"] =
                format!("  ● Test suite failed to run\n\n    OpenAI auth failed for key {key}")
                    .into();
        }
    }
    std::fs::write(d.path().join("jest.json"), jest.to_string()).unwrap();
    std::fs::write(
        d.path().join("inspect.json"),
        format!(
            r#"{{"version": 2, "status": "error", "eval": {{"task": "agent", "eval_id": "e1", "run_id": "r1", "scorers": [{{"name": "match"}}]}},
 "error": {{"message": "AuthenticationError: Incorrect API key provided: {key}", "traceback": ""}},
 "samples": [{{"id": 1, "epoch": 1, "scores": {{"match": {{"value": "C"}}}}}}]}}"#
        ),
    )
    .unwrap();
    for (file, says) in [
        (
            "mocha.json",
            "connect failed: postgres://ci:***@db.internal",
        ),
        ("jest.json", "OpenAI auth failed for key ***"),
        ("inspect.json", "Incorrect API key provided: ***"),
    ] {
        let out = ingest(d.path(), "1,0", &env, &[file]);
        let text = both(&out);
        assert_eq!(out.status.code(), Some(2), "{file}: {text}");
        assert!(text.contains(says), "{file}: {text}");
        no_secret(file, &text, &secrets);
    }
    let out = gate()
        .current_dir(d.path())
        .envs(env)
        .args(["explain", "--junit", "mocha.json"])
        .output()
        .unwrap();
    let text = both(&out);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("connect failed: postgres://ci:***@db.internal"),
        "{text}"
    );
    no_secret("gate explain --junit", &text, &secrets);
}

#[test]
fn c05_a_secret_in_a_result_file_name_reaches_the_ledger_and_reports() {
    // Review 47, c05: a result file named after a job token: its path went into the
    // ledger's `sources`, the "no record of this test in …" reason, the terminal and the
    // reports (the header's argv was already redacted).
    let token = "glcbt-64_R3vi3wJ0bT0k3nXyZ9";
    let d = tempfile::tempdir().unwrap();
    let run = |i: u32, tests: &[&str]| {
        let cases: String = tests
            .iter()
            .map(|t| format!("<testcase classname=\"t\" name=\"{t}\" time=\"0.1\"/>"))
            .collect();
        format!(
            "<testsuites name=\"pytest tests\"><testsuite name=\"pytest\" tests=\"{}\" failures=\"0\" \
             timestamp=\"2026-12-01T10:0{i}:00.1\" hostname=\"ci\">{cases}</testsuite></testsuites>",
            tests.len()
        )
    };
    std::fs::write(d.path().join("run-1.xml"), run(1, &["test_a", "test_b"])).unwrap();
    let second = format!("run-2-{token}.xml");
    std::fs::write(d.path().join(&second), run(2, &["test_a"])).unwrap();
    let out = ingest(
        d.path(),
        "2,0",
        &[("CI_JOB_TOKEN", token)],
        &[
            "--json",
            "report.json",
            "--junit",
            "junit.xml",
            "--summary",
            "summary.md",
            "--",
            "run-1.xml",
            &second,
        ],
    );
    let text = both(&out);
    // test_b has no record in the second run: a failed trial there.
    assert_eq!(out.status.code(), Some(1), "{text}");
    no_secret("the terminal", &text, &[token]);
    for f in ["l.jsonl", "report.json", "junit.xml", "summary.md"] {
        no_secret(f, &read(&d.path().join(f)), &[token]);
    }
    let ledger = read(&d.path().join("l.jsonl"));
    assert!(ledger.contains("\"run-2-***.xml\""), "{ledger}");
    assert!(
        ledger.contains("no record of this test in run-2-***.xml"),
        "{ledger}"
    );
}

#[test]
fn c09_a_json_escaped_secret_in_a_failure_and_in_promptfoo_vars() {
    // Review 47, c09: a password with `"` and `\` was not redacted where it appears
    // JSON-escaped: in a test's failure text, and in the test id gate itself encodes from a
    // promptfoo row's `vars`.
    let pw = r#"Ab3"Cd4\Ef5"Gh6\Ij7"Kl8"#;
    let env = [("DB_PASSWORD", pw)];
    let d = tempfile::tempdir().unwrap();
    let escaped = serde_json::to_string(pw).unwrap();
    let dumped = format!(
        "AssertionError: {{&quot;db&quot;: {{&quot;password&quot;: {}}}}}",
        escaped.replace('"', "&quot;")
    );
    std::fs::write(
        d.path().join("r1.xml"),
        format!(
            "<testsuites name=\"pytest tests\"><testsuite name=\"pytest\" tests=\"1\" failures=\"1\" \
             timestamp=\"2026-12-01T10:01:00.1\" hostname=\"ci\"><testcase classname=\"t\" name=\"test_config\" \
             time=\"0.1\"><failure message=\"config mismatch\">{dumped}</failure></testcase></testsuite></testsuites>"
        ),
    )
    .unwrap();
    let vars = serde_json::json!({"user": "ci", "password": pw});
    let row = serde_json::json!({"id": "row-1", "testIdx": 0, "promptIdx": 0, "testCase": {"vars": vars}, "vars": vars,
        "success": false, "failureReason": 1, "error": "login failed", "response": {"output": "denied"}});
    let pf = serde_json::json!({"evalId": "eval-1", "results": {"timestamp": "2026-12-01T10:02:00Z",
        "results": [row], "stats": {"successes": 0, "failures": 1, "errors": 0}}, "config": {}});
    std::fs::write(d.path().join("pf.json"), pf.to_string()).unwrap();
    // No twelve characters of the escaped form may remain (`Ef5` is in none of the rest).
    let pieces = ["Ef5", "Ij7"];
    let out = ingest(d.path(), "1,0", &env, &["r1.xml"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    let ledger = read(&d.path().join("l.jsonl"));
    assert!(ledger.contains(r#"password\": \"***\""#), "{ledger}");
    no_secret("the ledger", &ledger, &pieces);
    std::fs::remove_file(d.path().join("l.jsonl")).unwrap();
    let out = ingest(d.path(), "1,0", &env, &["pf.json"]);
    let text = both(&out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(r#"{"password":"***","user":"ci"}"#), "{text}");
    no_secret("the terminal", &text, &pieces);
    no_secret("the ledger", &read(&d.path().join("l.jsonl")), &pieces);
}
