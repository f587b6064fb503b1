//! Review 47, staged runs and promptfoo (docs/trust.md, "Review 47 (stages, promptfoo)"): a
//! stage ledger merged with an earlier-stage ledger it did not follow (c16), one promptfoo
//! eval counted as two runs (c01), and two promptfoo tests sharing a description merged into
//! one (c07). Each test is named after the break it pins.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::common::*;
use gate::ledger::Ledger;

/// Stages of 9 at 90% vs 70% (PASS at 0 failures of 9 or 2 of 18); the trials named in
/// `FAILSET` fail.
const STAGED: &str = "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}\ntasks:\n  - id: t\n    run: 'test -z \"$FAILSET\" || ! echo \" $FAILSET \" | grep -q \" $GATE_TRIAL \"'\n";

/// One attempt of one CI run: every stage below runs in it, as a retried step would.
const CI: [(&str, &str); 3] = [
    ("GITHUB_RUN_ID", "1001"),
    ("GITHUB_RUN_ATTEMPT", "1"),
    ("GITHUB_JOB", "gate"),
];

/// `gate run plan.yaml --stage S --ledger LEDGER --after A…` in the fixture, in [`CI`], with
/// the trials of `failset` failing: its exit code and output.
fn stage(fx: &Fixture, s: u64, ledger: &str, after: &[&str], failset: &str) -> (i32, String) {
    let mut cmd = gate();
    cmd.current_dir(fx.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "-q",
            "--ledger",
            ledger,
        ])
        .args(["--stage", &s.to_string()])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("FAILSET", failset)
        .envs(CI);
    for a in after {
        cmd.args(["--after", a]);
    }
    let out = cmd.output().unwrap();
    (out.status.code().unwrap_or(-1), both(&out))
}

/// `gate report LEDGERS` in the fixture, in [`CI`]: its exit code and output.
fn report(fx: &Fixture, ledgers: &[&str]) -> (i32, String) {
    let out = gate()
        .current_dir(fx.dir.path())
        .args(["report", "--no-step-summary"])
        .args(ledgers)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .envs(CI)
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), both(&out))
}

/// The header row of a ledger, as JSON.
fn header(path: &Path) -> Value {
    let text = read(path);
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

#[test]
fn c16_report_refuses_a_stage_one_the_stage_did_not_follow() {
    // Before: stage 2's ledger did not say which stage-1 ledger it ran after, so stage 2
    // (run after s1b: 3 failures) merged with another execution of stage 1 in the same CI
    // attempt (s1a: 1 failure) PASSed, where the run that happened says CONTINUE.
    let fx = Fixture::new(STAGED);
    assert_eq!(stage(&fx, 1, "a/s1.jsonl", &[], "2").0, 5);
    assert_eq!(stage(&fx, 1, "b/s1.jsonl", &[], "2 5 7").0, 5);
    let (code, out) = stage(&fx, 2, "b/s2.jsonl", &["b/s1.jsonl"], "12");
    assert_eq!(code, 0, "{out}");

    // Stage 2's header names the ledger it followed, by run id and chain head; a stage 1
    // (no `--after`) writes no `after` at all, so ledgers without it read as before.
    let s1b = Ledger::read(&fx.path("b/s1.jsonl")).unwrap();
    assert_eq!(
        header(&fx.path("b/s2.jsonl"))["after"],
        json!([{"run_id": s1b.header().run_id, "head": s1b.last_hash}])
    );
    assert!(header(&fx.path("b/s1.jsonl")).get("after").is_none());
    // The head recorded is the one `gate verify` prints.
    let verify = gate()
        .current_dir(fx.dir.path())
        .args(["verify", "b/s1.jsonl"])
        .output()
        .unwrap();
    assert!(
        both(&verify).contains(&format!("head sha256 {}", s1b.last_hash)),
        "{}",
        both(&verify)
    );

    // The pair that ran: CONTINUE (4 failures in 18).
    let (code, out) = report(&fx, &["b/s1.jsonl", "b/s2.jsonl"]);
    assert_eq!(code, 5, "{out}");
    // The other stage 1 is refused, as stages of another CI run are (exit 2), naming both.
    let (code, out) = report(&fx, &["a/s1.jsonl", "b/s2.jsonl"]);
    assert_eq!(code, 2, "{out}");
    assert!(!out.contains("PASS"), "{out}");
    assert!(
        out.contains("a/s1.jsonl") && out.contains("b/s2.jsonl"),
        "{out}"
    );
    assert!(out.contains("not after"), "{out}");
    assert!(out.contains(&s1b.header().run_id), "{out}");
    // A stage 3 run after the mixed pair is refused before its first trial.
    let (code, out) = stage(&fx, 3, "b/s3.jsonl", &["a/s1.jsonl", "b/s2.jsonl"], "");
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("not after"), "{out}");
    assert!(!fx.path("b/s3.jsonl").exists());
}

/// The repo's promptfoo eval (3 tests × 20 repeats) cut to its 20 passing `lookup` rows, as
/// promptfoo writes it: the eval's `results.json` and `results.jsonl` in `dir`.
fn lookup_eval(dir: &Path) -> Value {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/evals/promptfoo/results.json"),
    )
    .unwrap();
    let mut doc: Value = serde_json::from_str(&text).unwrap();
    let mut rows: Vec<Value> = doc["results"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["testCase"]["description"] == "lookup")
        .cloned()
        .collect();
    rows.sort_by_key(|r| r["testIdx"].as_u64());
    for (i, r) in rows.iter_mut().enumerate() {
        r["testIdx"] = i.into();
        assert_eq!(r["success"], true);
    }
    doc["results"]["stats"] = json!({"successes": rows.len(), "failures": 0, "errors": 0});
    let jsonl: String = rows.iter().map(|r| format!("{r}\n")).collect();
    doc["results"]["results"] = Value::Array(rows);
    std::fs::write(dir.join("results.json"), doc.to_string()).unwrap();
    std::fs::write(dir.join("results.jsonl"), jsonl).unwrap();
    doc
}

/// `gate ingest ARGS…` in `dir`, outside GitHub Actions: its exit code and output.
fn ingest_in(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = gate()
        .current_dir(dir)
        .args(["ingest", "--no-step-summary"])
        .args(args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), both(&out))
}

#[test]
fn c01_one_promptfoo_eval_as_json_and_jsonl_or_reindented_is_one_run() {
    // Before: the `results.json` and the `results.jsonl` of one eval (or a re-indented copy
    // of the json) were two runs: 20 passing rows PASSed `--single 40,0`.
    let d = tempfile::tempdir().unwrap();
    let doc = lookup_eval(d.path());
    std::fs::write(
        d.path().join("pretty.json"),
        serde_json::to_string_pretty(&doc).unwrap(),
    )
    .unwrap();
    let single = ["--single", "40,0", "--ledger", "l.jsonl"];
    // One eval alone is 20 trials of 40: INCONCLUSIVE.
    let (code, out) = ingest_in(d.path(), &[&single[..], &["results.json"]].concat());
    assert_eq!(code, 3, "{out}");
    for other in ["results.jsonl", "pretty.json"] {
        let _ = std::fs::remove_file(d.path().join("l.jsonl"));
        let (code, out) = ingest_in(d.path(), &[&single[..], &["results.json", other]].concat());
        assert_eq!(code, 2, "{other}: {out}");
        assert!(out.contains("same run"), "{other}: {out}");
        assert!(!out.contains("PASS"), "{other}: {out}");
    }
    // The eval as base and as head: every pair would be a run with itself.
    let (code, out) = ingest_in(
        d.path(),
        &[
            "--odds-ratio",
            "2",
            "--ledger",
            "c.jsonl",
            "--base",
            "results.jsonl",
            "--",
            "results.json",
        ],
    );
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("same run"), "{out}");

    // A second eval (its own evalId, timestamp and row ids) is a run of its own: 40 of 40.
    let mut second = doc.clone();
    second["evalId"] = "eval-second".into();
    second["results"]["timestamp"] = "2026-12-02T09:00:00.000Z".into();
    for (i, r) in second["results"]["results"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .enumerate()
    {
        r["id"] = format!("00000000-0000-4000-8000-{i:012}").into();
    }
    std::fs::write(d.path().join("second.json"), second.to_string()).unwrap();
    let _ = std::fs::remove_file(d.path().join("l.jsonl"));
    let (code, out) = ingest_in(
        d.path(),
        &[&single[..], &["results.json", "second.json"]].concat(),
    );
    assert_eq!(code, 0, "{out}");
}

/// A promptfoo `results.json` of one eval (`eval-N`, `timestamp` `ts`) whose rows are
/// `(description, vars, passed)`, in `testIdx` order.
fn promptfoo_file(dir: &Path, name: &str, ts: &str, rows: &[(&str, Value, bool)]) -> PathBuf {
    let rows: Vec<Value> = rows
        .iter()
        .enumerate()
        .map(|(i, (desc, vars, ok))| {
            json!({"id": format!("{name}-{i}"), "testIdx": i, "promptIdx": 0,
                "prompt": {"raw": "Refund {{amount}}", "label": "refund"},
                "provider": {"id": "agent", "label": ""},
                "testCase": {"description": desc, "vars": vars}, "vars": vars,
                "success": ok, "score": if *ok { 1 } else { 0 }, "failureReason": if *ok { 0 } else { 1 },
                "error": if *ok { Value::Null } else { "Expected output to contain 'refunded'".into() },
                "latencyMs": 3, "gradingResult": {"pass": ok, "score": if *ok { 1 } else { 0 }, "reason": "x"},
                "response": {"output": "ok"}})
        })
        .collect();
    let passing = rows.iter().filter(|r| r["success"] == true).count();
    let doc = json!({"evalId": format!("eval-{name}"), "results": {"version": 3, "timestamp": ts,
        "prompts": [], "results": rows,
        "stats": {"successes": passing, "failures": rows.len() - passing, "errors": 0}}, "config": {}});
    let path = dir.join(name);
    std::fs::write(&path, doc.to_string()).unwrap();
    path
}

#[test]
fn c07_promptfoo_tests_sharing_a_description_with_other_vars_are_refused() {
    // Before: `refund` (amount 10, passes) and another test also described `refund`
    // (amount 5000, fails every time) were read as repeats of one test: PASS.
    let d = tempfile::tempdir().unwrap();
    let files: Vec<String> = (1..=3)
        .map(|i| {
            let name = format!("run-{i}.json");
            promptfoo_file(
                d.path(),
                &name,
                &format!("2026-12-01T10:0{i}:00Z"),
                &[
                    ("refund", json!({"amount": 10}), true),
                    ("refund", json!({"amount": 5000}), false),
                ],
            );
            name
        })
        .collect();
    let args: Vec<&str> = ["--single", "3,1", "--ledger", "l.jsonl"]
        .into_iter()
        .chain(files.iter().map(String::as_str))
        .collect();
    let (code, out) = ingest_in(d.path(), &args);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("the description `refund`"), "{out}");
    assert!(out.contains("own description"), "{out}");
    assert!(!out.contains("PASS"), "{out}");

    // Repeats of one test (the same vars, `--repeat 2`) stay one test: 6 trials, 1 failure.
    let files: Vec<String> = (1..=3)
        .map(|i| {
            let name = format!("rep-{i}.json");
            promptfoo_file(
                d.path(),
                &name,
                &format!("2026-12-01T11:0{i}:00Z"),
                &[
                    ("refund", json!({"amount": 10}), true),
                    ("refund", json!({"amount": 10}), i != 2),
                ],
            );
            name
        })
        .collect();
    let args: Vec<&str> = ["--single", "6,1", "--ledger", "r.jsonl"]
        .into_iter()
        .chain(files.iter().map(String::as_str))
        .collect();
    let (code, out) = ingest_in(d.path(), &args);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("refund"), "{out}");
}

#[test]
fn rev50a_26_resume_takes_the_after_ledgers_in_any_order() {
    // Review 50 (rev50a 26): a stage started `--after a/s1 --after a/s2` and resumed with
    // the same two ledgers in the other order was refused as "other earlier-stage ledgers";
    // `--after` names a set. Ledgers that are other ones are still refused.
    let fx = Fixture::new(STAGED);
    for d in ["a", "x", "r"] {
        std::fs::create_dir_all(fx.dir.path().join(d)).unwrap();
    }
    assert_eq!(stage(&fx, 1, "a/s1.jsonl", &[], "2 5").0, 5);
    // A later stage's own run ends "INCONCLUSIVE for now" (exit 0): `gate report` decides.
    assert_eq!(stage(&fx, 2, "a/s2.jsonl", &["a/s1.jsonl"], "12").0, 0);
    assert_eq!(stage(&fx, 1, "x/s1.jsonl", &[], "2 5").0, 5);
    let (code, out) = stage(&fx, 3, "a/s3.jsonl", &["a/s1.jsonl", "a/s2.jsonl"], "");
    assert!(code == 0 || code == 1, "{out}");
    // A stage 3 interrupted after three trials: its header and first attempt rows.
    let full = read(&fx.dir.path().join("a/s3.jsonl"));
    let cut: Vec<&str> = full.lines().take(4).collect();
    assert!(
        cut[1..].iter().all(|l| l.contains("\"kind\":\"attempt\"")),
        "{full}"
    );
    for r in ["r/s3.jsonl", "r/t3.jsonl"] {
        std::fs::write(fx.dir.path().join(r), format!("{}\n", cut.join("\n"))).unwrap();
    }
    let resume = |ledger: &str, after: &[&str]| {
        let mut args = vec![
            "run",
            "plan.yaml",
            "--no-step-summary",
            "-q",
            "--ledger",
            ledger,
            "--stage",
            "3",
            "--resume",
        ];
        for a in after {
            args.extend(["--after", a]);
        }
        let out = gate()
            .current_dir(fx.dir.path())
            .args(&args)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env("FAILSET", "")
            .envs(CI)
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), both(&out))
    };
    let (code, out) = resume("r/s3.jsonl", &["a/s2.jsonl", "a/s1.jsonl"]);
    assert!(
        code == 0 || code == 1,
        "reordered `--after` refused:\n{out}"
    );
    assert!(!out.contains("other earlier-stage ledgers"), "{out}");
    let (code, out) = resume("r/t3.jsonl", &["a/s2.jsonl", "x/s1.jsonl"]);
    assert_eq!(code, 2, "{out}");
}

#[test]
fn c16_resume_after_other_earlier_stage_ledgers_is_refused() {
    // c16's third wall: a stage-2 ledger records the stage-1 ledger it followed; resumed
    // `--after` another execution of stage 1 (same CI attempt, alike header), its remaining
    // trials would run after a stage 1 whose verdict never let them. Refused before any trial.
    let fx = Fixture::new(STAGED);
    assert_eq!(stage(&fx, 1, "a/s1.jsonl", &[], "2").0, 5);
    assert_eq!(stage(&fx, 1, "b/s1.jsonl", &[], "2 5 7").0, 5);
    let (code, out) = stage(&fx, 2, "b/s2.jsonl", &["b/s1.jsonl"], "12");
    assert_eq!(code, 0, "{out}");
    // Cut after its first trials, as a killed stage 2 leaves it.
    let cut: String = read(&fx.path("b/s2.jsonl"))
        .lines()
        .take(4)
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(fx.path("b/s2.jsonl"), &cut).unwrap();
    let before = read(&fx.path("b/s2.jsonl"));
    let resume = |after: &str| {
        let out = gate()
            .current_dir(fx.dir.path())
            .args(["run", "plan.yaml", "--no-step-summary", "-q"])
            .args([
                "--ledger",
                "b/s2.jsonl",
                "--stage",
                "2",
                "--after",
                after,
                "--resume",
            ])
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env("FAILSET", "")
            .envs(CI)
            .output()
            .unwrap();
        (out.status.code().unwrap_or(-1), both(&out))
    };
    let (code, out) = resume("a/s1.jsonl");
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("`--resume`: the ledger was started `--after` other earlier-stage ledgers"),
        "{out}"
    );
    assert_eq!(
        read(&fx.path("b/s2.jsonl")),
        before,
        "the ledger is untouched"
    );
    // The control: resumed after the stage 1 it followed, the remaining trials run (the
    // stage exits 0 as its first run did; the verdict over both stages is `gate report`'s).
    let (code, out) = resume("b/s1.jsonl");
    assert_eq!(code, 0, "{out}");
    assert!(read(&fx.path("b/s2.jsonl")).len() > before.len());
}
