//! `gate report`: reports recomputed from ledgers written with the real `LedgerWriter`;
//! JUnit validated against Jenkins' XSD with xmllint; shards merged equal one run.

use std::path::{Path, PathBuf};
use std::process::Command;

use assert_cmd::cargo::cargo_bin_cmd;
use gate::ledger::{
    AttemptRow, DecisionRow, Footer, Header, Ledger, LedgerWriter, Row, RunStatus, TaskResult,
    TaskSpec,
};
use gate::model::{
    Counts, OnInconclusive, Outcome, Rates, Sampling, Shard, TimeoutPolicy, TrialOutcome, Verdict,
};
use gate::sampler::Sampler;
use predicates::prelude::*;

/// A single-plan task at line 3 of `plans/demo.yaml`, designed for 0.9 vs 0.7.
pub(crate) fn single(id: &str, n: u64, c: u64) -> TaskSpec {
    TaskSpec {
        id: id.to_string(),
        line: Some(3),
        sampling: Sampling::Single { n, c },
        rates: Some(Rates {
            healthy: 0.9,
            regressed: 0.7,
            alpha: 0.05,
            beta: 0.1,
        }),
        max_unavailable: 2,
        run: format!("./agent {id}"),
        check: None,
        timeout_s: Some(10.0),
        compare: None,
        suite: None,
    }
}

/// A fresh ledger writer (the one place these tests call `LedgerWriter::create`).
pub(crate) fn writer(path: &Path) -> LedgerWriter {
    LedgerWriter::create(path).unwrap().0
}

/// `n` outcomes: the ordinals in `fails` fail, `harness` (if any) cannot run, the rest pass.
pub(crate) fn outcomes(n: u64, fails: &[u64], harness: Option<u64>) -> Vec<Outcome> {
    (1..=n)
        .map(|o| {
            if Some(o) == harness {
                Outcome::HarnessError
            } else if fails.contains(&o) {
                Outcome::Fail
            } else {
                Outcome::Pass
            }
        })
        .collect()
}

fn attempt(task: &str, trial: u64, outcome: Outcome) -> AttemptRow {
    AttemptRow {
        task: task.to_string(),
        trial,
        attempt: 1,
        started_at: "2026-11-29T14:00:01.000Z".into(),
        duration_s: 0.1 * (trial % 5 + 1) as f64,
        exit_code: Some(match outcome {
            Outcome::Pass => 0,
            Outcome::HarnessError => 127,
            _ => 1,
        }),
        signal: None,
        check_exit: None,
        fault: (outcome == Outcome::HarnessError).then_some(gate::model::Fault::Harness),
        outcome,
        graded: matches!(outcome, Outcome::Pass | Outcome::Fail),
        detail: gate::ledger::AttemptDetail {
            result: Some(
                TaskResult {
                    cost: Some(0.01),
                    ..TaskResult::default()
                }
                .into(),
            ),
            reason: (outcome == Outcome::HarnessError).then(|| "`./agent`: not found".to_string()),
            stdout_tail: format!("trial {trial} <ok> & done\n"),
            stderr_tail: String::new(),
            log: None,
        }
        .into(),
        side: None,
        pair_position: None,
        suite_run: None,
    }
}

/// Write a ledger as a `--jobs 1` runner would: trials in ordinal order (only those `shard`
/// owns), an unsharded task stopping at its decision, decision rows, a footer.
pub(crate) fn write_run(
    path: &Path,
    tasks: &[(TaskSpec, Vec<Outcome>)],
    shard: Option<Shard>,
    plan_hash: &str,
) -> PathBuf {
    let mut w = writer(path);
    w.append(Row::Header(
        Header {
            schema: gate::ledger::schema_for(
                &tasks.iter().map(|(t, _)| t.clone()).collect::<Vec<_>>(),
            ),
            gate_version: "0.1.0".to_string(),
            run_id: format!("run-{}", shard.map_or(0, |s| s.k)),
            plan_path: "plans/demo.yaml".to_string(),
            plan_hash: plan_hash.to_string(),
            fixture_hash: "f".repeat(64),
            programs: Default::default(),
            argv: vec!["gate".into(), "run".into()],
            started_at: "2026-11-29T14:00:00.000Z".to_string(),
            host: "ci".to_string(),
            shard,
            stage: None,
            after: Vec::new(),
            jobs: 1,
            timeout_policy: TimeoutPolicy::Fail,
            on_inconclusive: OnInconclusive::Fail,
            transport_exit_codes: vec![75],
            transport_max_retries: 0,
            tasks: tasks.iter().map(|(t, _)| t.clone()).collect(),
            sources: Vec::new(),
            sandbox: None,
            ci: None,
        }
        .into(),
    ))
    .unwrap();
    let mut verdicts = Vec::new();
    let mut harness = false;
    for (spec, outs) in tasks {
        let mut sampler = Sampler::new(spec.sampling.clone(), spec.max_unavailable).unwrap();
        let mut broken = false;
        for (i, &o) in outs.iter().enumerate() {
            let ordinal = i as u64 + 1;
            if shard.is_some_and(|s| !s.owns(ordinal)) {
                continue;
            }
            if shard.is_none() && sampler.decision().is_some() {
                break;
            }
            w.append(Row::Attempt(attempt(&spec.id, ordinal, o).into()))
                .unwrap();
            match o {
                Outcome::Pass => drop(sampler.consume(TrialOutcome::Pass)),
                Outcome::Fail => drop(sampler.consume(TrialOutcome::Fail)),
                _ => {
                    broken = true;
                    break;
                }
            }
        }
        harness |= broken;
        let verdict = (!broken).then(|| {
            sampler
                .decision()
                .map_or(Verdict::Inconclusive, |d| d.verdict)
        });
        verdicts.push(verdict);
        w.append(Row::Decision(
            DecisionRow {
                task: spec.id.clone(),
                verdict: verdict.into(),
                reason: "recorded by the test runner".to_string(),
                counts: Counts::from_tally(sampler.tally(), 0, 0),
                llr: sampler.llr(),
            }
            .into(),
        ))
        .unwrap();
    }
    let verdict = (!harness).then(|| Verdict::combine(verdicts.into_iter().flatten()));
    w.append(Row::Footer(Box::new(Footer {
        finished_at: "2026-11-29T14:01:00.000Z".to_string(),
        status: if harness {
            RunStatus::HarnessError
        } else {
            RunStatus::Complete
        },
        verdict: verdict.into(),
        // A shard exits 0 unless its own trials make a FAIL certain.
        exit_code: match verdict {
            None => 4,
            Some(Verdict::Fail) => 1,
            Some(_) if shard.is_some() => 0,
            Some(Verdict::Pass) => 0,
            Some(Verdict::Inconclusive) => 3,
        },
    })))
    .unwrap();
    Ledger::read(path).unwrap();
    path.to_path_buf()
}

pub(crate) fn plan_hash() -> String {
    "a".repeat(64)
}

/// Jenkins' JUnit schema (MIT), vendored so that a clone alone can run the suite.
fn xsd() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemas/junit-10.xsd")
}

/// Validate with xmllint. Fails (never skips) when xmllint is missing: scripts/test.sh
/// installs it. The `file` and `line` attributes of `<testcase>` (pytest's, read by
/// annotation reporters) are the one documented extension the XSD does not know: they are
/// checked to be present, then removed from a copy before validation.
pub(crate) fn assert_valid_junit(xml: &Path) {
    let text = std::fs::read_to_string(xml).expect("JUnit file");
    let located = regex::Regex::new(r#" file="[^"]*"( line="[0-9]+")?"#).unwrap();
    assert!(
        text.matches("<testcase ").count() == located.find_iter(&text).count(),
        "every testcase carries file= (and line=): {text}"
    );
    let stripped = tempfile::NamedTempFile::new().expect("temp file");
    std::fs::write(stripped.path(), located.replace_all(&text, "").as_bytes()).expect("write");
    let out = Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(xsd())
        .arg(stripped.path())
        .output()
        .expect("xmllint must be installed (scripts/test.sh installs libxml2-utils)");
    assert!(
        out.status.success(),
        "{} does not validate against junit-10.xsd:\n{}",
        xml.display(),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn report_cmd() -> assert_cmd::Command {
    let mut cmd = cargo_bin_cmd!("gate");
    cmd.env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .arg("report");
    cmd
}

fn json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Run `gate report` on `ledgers` writing every file into `dir`; returns the exit code.
fn report_all(dir: &Path, ledgers: &[PathBuf], extra: &[&str]) -> i32 {
    let out = report_cmd()
        .args(ledgers)
        .args(extra)
        .arg("--junit")
        .arg(dir.join("junit.xml"))
        .arg("--json")
        .arg(dir.join("report.json"))
        .arg("--summary")
        .arg(dir.join("summary.md"))
        .output()
        .unwrap();
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.status.code().unwrap()
}

#[test]
fn junit_validates_for_pass_fail_inconclusive_and_harness_error() {
    let d = tempfile::tempdir().unwrap();
    // (name, tasks, exit code, JSON verdict)
    type Case = (
        &'static str,
        Vec<(TaskSpec, Vec<Outcome>)>,
        i32,
        &'static str,
    );
    let cases: [Case; 4] = [
        (
            "pass",
            vec![(single("login", 10, 1), outcomes(10, &[4], None))],
            0,
            "PASS",
        ),
        (
            "fail",
            vec![
                (single("login", 10, 1), outcomes(10, &[], None)),
                (single("refund", 10, 1), outcomes(10, &[2, 3], None)),
            ],
            1,
            "FAIL",
        ),
        (
            "inconclusive",
            vec![(single("search", 10, 1), outcomes(4, &[], None))],
            3,
            "INCONCLUSIVE",
        ),
        (
            "harness",
            vec![(single("login", 10, 1), outcomes(10, &[], Some(2)))],
            4,
            "null",
        ),
    ];
    for (name, tasks, code, verdict) in cases {
        let sub = d.path().join(name);
        std::fs::create_dir_all(&sub).unwrap();
        let l = write_run(&sub.join("ledger.jsonl"), &tasks, None, &plan_hash());
        assert_eq!(report_all(&sub, &[l], &[]), code, "{name}");
        assert_valid_junit(&sub.join("junit.xml"));
        let xml = std::fs::read_to_string(sub.join("junit.xml")).unwrap();
        let back = quick_junit::Report::deserialize_from_str(&xml).unwrap();
        assert_eq!(back.failures + back.errors > 0, code != 0, "{name}");
        let j = json(&sub.join("report.json"));
        assert_eq!(
            j["verdict"].to_string().trim_matches('"'),
            verdict,
            "{name}"
        );
        assert_eq!(j["exit_code"], code, "{name}");
    }
}

/// Regression (review of issue 8): U+FFFE and U+FFFF in a task's output are not control
/// characters, so they reached `<system-out>` and the JUnit file was not XML 1.0 (xmllint:
/// "Char 0xFFFE out of allowed range"); CI's JUnit reporters then drop the whole file.
#[test]
fn junit_with_noncharacters_in_task_output_is_still_xml() {
    let f = crate::common::Fixture::new(
        r#"version: 1
sampling: {single: {n: 1, c: 0}}
tasks:
  - id: t
    run: 'printf "a\357\277\276b\357\277\277c\001d\n"; printf "e\357\277\276\n" >&2; exit 1'
"#,
    );
    f.run(&["--junit", "j.xml"]).code(1);
    let text = std::fs::read_to_string(f.path("j.xml")).unwrap();
    assert!(text.contains("<system-out>"), "{text}");
    assert_valid_junit(&f.path("j.xml"));
}

#[test]
fn the_json_contract_has_its_documented_fields() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("ledger.jsonl"),
        &[(single("login", 20, 3), outcomes(20, &[2, 5], None))],
        None,
        &plan_hash(),
    );
    assert_eq!(report_all(d.path(), &[l], &[]), 0);
    let j = json(&d.path().join("report.json"));
    assert_eq!(j["schema"], 3);
    // The head of the hash chain: the SHA-256 of the last row, as `gate verify` prints it.
    let last = std::fs::read_to_string(d.path().join("ledger.jsonl")).unwrap();
    let last = last.lines().last().unwrap();
    let head = gate::ledger::sha256_hex(last.as_bytes());
    assert_eq!(j["ledger_head_sha256"], head.as_str());
    assert_eq!(j["ledgers"][0]["head_sha256"], head.as_str());
    assert_eq!(j["tasks"][0]["missing"], serde_json::json!([]));
    assert_eq!(j["verdict"], "PASS");
    let t = &j["tasks"][0];
    assert_eq!(t["id"], "login");
    assert_eq!(t["verdict"], "PASS");
    assert_eq!(t["trials"]["run"], 19);
    assert_eq!(t["trials"]["passed"], 17);
    assert_eq!(t["trials"]["failed"], 2);
    assert_eq!(t["trials"]["unavailable"], 0);
    assert_eq!(t["trials"]["cancelled"], 0);
    // The published pass rate accounts for the curtailed stop; the naive one is kept.
    let pr = &t["pass_rate"];
    assert_eq!(pr["method"], "stagewise");
    let naive = pr["naive"]["estimate"].as_f64().unwrap();
    assert!((naive - 17.0 / 19.0).abs() < 1e-12);
    let est = pr["estimate"].as_f64().unwrap();
    assert!(est < naive, "{est}");
    let (lo, hi) = (
        pr["ci95"]["lo"].as_f64().unwrap(),
        pr["ci95"]["hi"].as_f64().unwrap(),
    );
    assert!(lo < est && est < hi);
    assert!(pr["ci95_clopper_pearson"]["lo"].is_f64());
    assert!(pr["naive"]["ci95"]["lo"].as_f64().unwrap() > lo);
    assert_eq!(t["pass_at_k"][0]["k"], 1);
    let p3 = &t["pass_at_k"][1];
    assert!((p3["pass_hat_k"].as_f64().unwrap() - est.powi(3)).abs() < 1e-12);
    assert!(p3["naive"]["pass_hat_k"].is_f64());
    assert!(p3["pass_hat_k_ci95"]["hi"].is_f64());
    assert!(t["retry_settings"][0]["naive_p_green"].is_f64());
    assert_eq!(t["not_counted"]["cancelled"]["trials"], 0);
    assert_eq!(t["timeouts_replaced"], 0);
    assert!(t["fault_risk"].is_null());
    assert_eq!(
        t["plan"]["description"],
        "20 trials, pass if at most 3 fail"
    );
    assert!(t["plan"]["alpha"].as_f64().unwrap() > 0.0);
    assert!(j["multiplicity"]["cost"].is_f64());
    assert_eq!(t["trial_list"].as_array().unwrap().len(), 19);
    assert_eq!(t["score"]["within_budget"]["num"], 17);
}

#[test]
fn three_shards_merged_equal_one_run() {
    let d = tempfile::tempdir().unwrap();
    let tasks = vec![
        (single("login", 30, 3), outcomes(30, &[3, 11, 20], None)),
        (
            single("refund", 30, 3),
            outcomes(30, &[1, 5, 8, 13, 22], None),
        ),
    ];
    let one_dir = d.path().join("one");
    let shard_dir = d.path().join("shards");
    std::fs::create_dir_all(&one_dir).unwrap();
    std::fs::create_dir_all(&shard_dir).unwrap();
    let one = write_run(&one_dir.join("ledger.jsonl"), &tasks, None, &plan_hash());
    let shards: Vec<PathBuf> = (1..=3)
        .map(|k| {
            write_run(
                &shard_dir.join(format!("ledger-{k}.jsonl")),
                &tasks,
                Some(Shard { k, m: 3 }),
                &plan_hash(),
            )
        })
        .collect();
    let a = report_all(&one_dir, &[one], &[]);
    // The same shard given twice is de-duplicated.
    let mut with_dup = shards.clone();
    with_dup.push(shards[0].clone());
    let b = report_all(&shard_dir, &with_dup, &[]);
    assert_eq!((a, b), (1, 1));
    let (ja, jb) = (
        json(&one_dir.join("report.json")),
        json(&shard_dir.join("report.json")),
    );
    assert_eq!(ja["verdict"], jb["verdict"]);
    for i in 0..2 {
        let (ta, tb) = (&ja["tasks"][i], &jb["tasks"][i]);
        for key in ["verdict", "reason", "pass_rate", "pass_at_k", "decided_at"] {
            assert_eq!(ta[key], tb[key], "task {i} {key}");
        }
        for key in ["run", "passed", "failed", "unavailable", "cancelled"] {
            assert_eq!(ta["trials"][key], tb["trials"][key], "task {i} {key}");
        }
    }
    assert_eq!(jb["shards"]["present"], serde_json::json!([1, 2, 3]));
    assert_valid_junit(&shard_dir.join("junit.xml"));
}

#[test]
fn a_missing_shard_is_inconclusive_unless_the_verdict_is_certain() {
    let d = tempfile::tempdir().unwrap();
    let tasks = vec![(single("login", 30, 3), outcomes(30, &[2], None))];
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            write_run(
                &d.path().join(format!("ledger-{k}.jsonl")),
                &tasks,
                Some(Shard { k, m: 3 }),
                &plan_hash(),
            )
        })
        .collect();
    report_cmd()
        .args(&shards)
        .assert()
        .code(3)
        .stdout(predicate::str::contains("shard 3 of 3 absent"))
        .stdout(predicate::str::contains(
            "shards        2 of 3 present (shards 1, 2); missing shard 3",
        ));
    report_cmd()
        .args(&shards)
        .args(["--on-inconclusive", "pass"])
        .assert()
        .code(0);
    // Four failures in the shards present: FAIL is certain without shard 3.
    let tasks = vec![(single("login", 30, 3), outcomes(30, &[1, 2, 4, 5], None))];
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| {
            write_run(
                &d.path().join(format!("certain-{k}.jsonl")),
                &tasks,
                Some(Shard { k, m: 3 }),
                &plan_hash(),
            )
        })
        .collect();
    report_cmd().args(&shards).assert().code(1);
}

#[test]
fn shard_ledgers_verify() {
    let d = tempfile::tempdir().unwrap();
    let tasks = vec![(single("login", 30, 3), outcomes(30, &[2, 9], None))];
    for k in 1..=3 {
        let l = write_run(
            &d.path().join(format!("ledger-{k}.jsonl")),
            &tasks,
            Some(Shard { k, m: 3 }),
            &plan_hash(),
        );
        cargo_bin_cmd!("gate")
            .arg("verify")
            .arg(&l)
            .assert()
            .code(0);
    }
}

#[test]
fn mixed_plans_are_refused() {
    let d = tempfile::tempdir().unwrap();
    let tasks = vec![(single("login", 10, 1), outcomes(10, &[], None))];
    let a = write_run(
        &d.path().join("a.jsonl"),
        &tasks,
        Some(Shard { k: 1, m: 2 }),
        &plan_hash(),
    );
    let b = write_run(
        &d.path().join("b.jsonl"),
        &tasks,
        Some(Shard { k: 2, m: 2 }),
        &"b".repeat(64),
    );
    report_cmd()
        .arg(&a)
        .arg(&b)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("ledgers of different plans"))
        .stderr(predicate::str::contains("a.jsonl"))
        .stderr(predicate::str::contains("b.jsonl"));
}

#[test]
fn github_actions_gets_annotations_and_a_step_summary() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("ledger.jsonl"),
        &[
            (single("login", 10, 1), outcomes(10, &[], None)),
            (single("refund", 10, 1), outcomes(10, &[2, 3], None)),
            (single("search", 10, 1), outcomes(3, &[], None)),
        ],
        None,
        &plan_hash(),
    );
    let step = d.path().join("step-summary.md");
    std::fs::write(&step, "earlier step\n").unwrap();
    let out = cargo_bin_cmd!("gate")
        .arg("report")
        .arg(&l)
        .env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &step)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("::")).collect();
    assert_eq!(lines.len(), 2, "{stdout}");
    assert!(lines[0].starts_with(
        "::error file=plans/demo.yaml,line=3,title=gate%3A refund FAIL::2 failures exceed"
    ));
    assert!(
        lines[1].starts_with(
            "::warning file=plans/demo.yaml,line=3,title=gate%3A search INCONCLUSIVE::"
        )
    );
    let summary = std::fs::read_to_string(&step).unwrap();
    assert!(
        summary.starts_with("earlier step\n## gate: ❌ FAIL"),
        "{summary}"
    );
    assert!(summary.contains("```mermaid"));

    // --no-step-summary leaves the step summary alone.
    cargo_bin_cmd!("gate")
        .arg("report")
        .arg(&l)
        .arg("--no-step-summary")
        .env("GITHUB_STEP_SUMMARY", &step)
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(1)
        .stdout(predicate::str::contains("::error").not());
    assert_eq!(std::fs::read_to_string(&step).unwrap(), summary);
}

#[test]
fn bad_input_exits_2_with_a_location() {
    let d = tempfile::tempdir().unwrap();
    let bad = d.path().join("bad.jsonl");
    std::fs::write(&bad, "{\"seq\":0,\"prev\":\"0\",\"kind\":\"header\"}\n").unwrap();
    report_cmd()
        .arg(&bad)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("bad.jsonl:1:"));
    report_cmd()
        .arg(d.path().join("absent.jsonl"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("absent.jsonl"));
    let l = write_run(
        &d.path().join("ok.jsonl"),
        &[(single("login", 3, 0), outcomes(3, &[], None))],
        None,
        &plan_hash(),
    );
    report_cmd()
        .arg(&l)
        .args(["--on-inconclusive", "maybe"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "invalid value 'maybe' for '--on-inconclusive",
        ));
}

#[test]
fn terminal_summary_of_a_run() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("ledger.jsonl"),
        &[
            (single("login", 20, 3), outcomes(20, &[2, 5], None)),
            (single("refund", 10, 1), outcomes(10, &[2, 3], None)),
        ],
        None,
        &plan_hash(),
    );
    let out = report_cmd().arg(&l).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    insta::assert_snapshot!(String::from_utf8(out.stdout).unwrap());
}

/// Copy a ledger row by row through a real writer, changing rows on the way: the copy's hash
/// chain is intact, as a careful forger's would be.
pub(crate) fn rechain(src: &Path, dst: &Path, mut edit: impl FnMut(&mut Row)) -> PathBuf {
    let l = Ledger::read(src).unwrap();
    let mut w = writer(dst);
    for rec in l.records {
        let mut row = rec.row;
        edit(&mut row);
        w.append(row).unwrap();
    }
    dst.to_path_buf()
}

#[test]
fn a_huge_trial_ordinal_is_refused_not_a_capacity_overflow() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("ledger.jsonl"),
        &[(single("login", 10, 1), outcomes(10, &[3], None))],
        None,
        &plan_hash(),
    );
    for (name, huge) in [("max", u64::MAX), ("billion", 1_000_000_000)] {
        let forged = rechain(&l, &d.path().join(format!("{name}.jsonl")), |row| {
            if let Row::Attempt(a) = row
                && a.trial == 10
            {
                std::sync::Arc::make_mut(a).trial = huge;
            }
        });
        // Line 12: the header, trials #1..#10 (the last forged), then the decision.
        report_cmd()
            .arg(&forged)
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{}:11: task `login` trial #{huge} cannot have been run",
                forged.display()
            )));
        cargo_bin_cmd!("gate")
            .arg("verify")
            .arg(&forged)
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "error: {}:11: cannot replay",
                forged.display()
            )));
    }
}

#[test]
fn a_shard_ledger_with_an_ordinal_of_another_shard_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("s1.jsonl"),
        &[(single("login", 30, 3), outcomes(30, &[], None))],
        Some(Shard { k: 1, m: 3 }),
        &plan_hash(),
    );
    let forged = rechain(&l, &d.path().join("forged.jsonl"), |row| {
        if let Row::Attempt(a) = row
            && a.trial == 4
        {
            std::sync::Arc::make_mut(a).trial = 5;
        }
    });
    report_cmd()
        .arg(&forged)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "task `login` trial #5 does not belong to shard 1/3",
        ));
}

#[test]
fn a_lone_shard_counts_every_missing_ordinal_up_to_n() {
    // Shard 1/3 of n = 33 records ordinals 1, 4, …, 31: the 22 others up to 33 are missing,
    // not only the 20 below #31.
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("s1.jsonl"),
        &[(single("login", 33, 6), outcomes(33, &[], None))],
        Some(Shard { k: 1, m: 3 }),
        &plan_hash(),
    );
    let json_path = d.path().join("r.json");
    report_cmd()
        .arg(&l)
        .arg("--json")
        .arg(&json_path)
        .assert()
        .code(3)
        .stdout(predicate::str::contains(
            "22 ordinals not recorded (#2–3, #5–6, #8–9, #11–12, #14–15, #17–18, #20–21, #23–24 and 6 more)",
        ))
        .stdout(predicate::str::contains(
            "gate  INCONCLUSIVE for now: shard 1/3 of a sharded run (exit 3; `gate report` over all shards decides)",
        ));
    let j = json(&json_path);
    let missing = j["tasks"][0]["missing"].as_array().unwrap();
    assert_eq!(missing.len(), 11);
    assert_eq!(missing[10], serde_json::json!({"first": 32, "last": 33}));
}

#[test]
fn a_forged_header_with_impossible_sampling_is_refused() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("ledger.jsonl"),
        &[(single("login", 3, 1), outcomes(3, &[], None))],
        None,
        &plan_hash(),
    );
    type Forge = fn(&mut TaskSpec);
    let forgeries: [(&str, Forge, &str); 3] = [
        (
            "c_above_n",
            |t| t.sampling = Sampling::Single { n: 1, c: 3 },
            "single plan: acceptance number `c` (3) must be less than `n` (1)",
        ),
        (
            "n_zero",
            |t| t.sampling = Sampling::Single { n: 0, c: 0 },
            "single plan: `n` must be between 1 and 1000000, got 0",
        ),
        (
            "healthy_above_one",
            |t| t.rates.as_mut().unwrap().healthy = 1.5,
            "recorded rates: `healthy` must be strictly between 0 and 1, got 1.5",
        ),
    ];
    for (name, forge, what) in forgeries {
        let forged = rechain(&l, &d.path().join(format!("{name}.jsonl")), |row| {
            if let Row::Header(h) = row {
                forge(&mut h.tasks[0]);
            }
        });
        report_cmd()
            .arg(&forged)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "{}:1: header row: task `login`: ",
                forged.display()
            )))
            .stderr(predicate::str::contains(what));
        cargo_bin_cmd!("gate")
            .arg("verify")
            .arg(&forged)
            .assert()
            .code(1)
            .stderr(predicate::str::contains(format!(
                "error: {}:1: cannot replay",
                forged.display()
            )));
    }
    // A forged sequential rule.
    let forged = rechain(&l, &d.path().join("seq.jsonl"), |row| {
        if let Row::Header(h) = row {
            h.tasks[0].sampling = Sampling::Sequential {
                healthy: 0.7,
                regressed: 0.9,
                alpha: 0.05,
                beta: 0.1,
                max_trials: 40,
                rule: gate::model::SequentialRule::Wald,
            };
        }
    });
    report_cmd()
        .arg(&forged)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "sequential rule: `healthy` (0.7) must be greater",
        ));
}

#[test]
fn a_broken_chain_is_shown_prominently() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("ledger.jsonl"),
        &[(single("login", 10, 1), outcomes(10, &[3], None))],
        None,
        &plan_hash(),
    );
    let text = std::fs::read_to_string(&l).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // An edit that leaves every decision recomputing (a forged decision is refused outright,
    // see `hostile::forged_decision_rows_make_report_fail`) but breaks the chain.
    assert!(lines[2].contains("\"started_at\":\""));
    lines[2] = lines[2].replacen("\"started_at\":\"", "\"started_at\":\"edited ", 1);
    std::fs::write(&l, lines.join("\n") + "\n").unwrap();
    let summary = d.path().join("summary.md");
    report_cmd()
        .arg(&l)
        .arg("--summary")
        .arg(&summary)
        .assert()
        .stdout(predicate::str::contains(format!(
            "ledger integrity: chain broken at {}:4: prev does not match",
            l.display()
        )));
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.contains("> ⚠️ **Ledger integrity: chain broken at"),
        "{md}"
    );
}
