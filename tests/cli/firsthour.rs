//! The first hour of a new user (issue 20): the indifference zone stated wherever a plan is
//! shown, and the conventions this audience expects from test tools.

use predicates::prelude::*;

use crate::common::{Fixture, gate};
use gate::stats::binomial::ln_choose;
use gate::stats::design;
use gate::stats::lattice::Boundaries;

/// P(at most c failures in n trials at rate p), summed term by term (p inside (0, 1)).
fn single_p_pass(n: u64, c: u64, p: f64) -> f64 {
    (0..=c.min(n))
        .map(|k| (ln_choose(n, k) + k as f64 * (1.0 - p).ln() + (n - k) as f64 * p.ln()).exp())
        .sum()
}

const PLAN_90_70: &str = "version: 1\nsampling:\n  design: {healthy: 90%, regressed: 70%}\ntasks:\n  - id: refund\n    run: \"true\"\n";

#[test]
fn check_states_the_indifference_zone_with_the_half_rate_from_the_exact_oc() {
    let f = Fixture::new(PLAN_90_70);
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  zone       between 70% and 90% the verdict can go either way: at 80.0% it passes half the time\n",
        ));
    let out = gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml", "--format", "json"])
        .output()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let zone = &json["tasks"][0]["zone"];
    let half = zone["half"].as_f64().unwrap();
    // Recomputed term by term, independent of the OC code gate decided with.
    assert!((single_p_pass(33, 6, half) - 0.5).abs() < 1e-9, "{half}");
    // Not the midpoint: at 80% the plan passes 50.04% of the time.
    assert!(half < 0.8);
    assert_eq!(zone["lo"].as_f64(), Some(0.7));
    assert_eq!(zone["hi"].as_f64(), Some(0.9));
}

#[test]
fn plan_offers_the_design_that_halves_the_zone_and_what_it_costs() {
    let out = gate()
        .args([
            "plan",
            "--healthy",
            "90%",
            "--regressed",
            "70%",
            "--format",
            "json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = &json["zone"]["narrower"];
    let want = design::design_single(0.9, 0.8, 0.05, 0.10).unwrap();
    assert_eq!(
        n["regressed"].as_f64().map(|r| (r * 1e9).round()),
        Some(0.8e9)
    );
    assert_eq!(n["single_n"].as_u64(), Some(want.n));
    assert_eq!(n["single_c"].as_u64(), Some(want.c));
    let asn = n["single_curtailed_asn_healthy"].as_f64().unwrap();
    let plan = Boundaries::single(want.n, want.c).unwrap();
    assert!((asn - plan.oc(0.9).asn).abs() < 1e-9);
    assert!(
        n["sequential_asn_healthy"].as_f64().unwrap()
            > json["sequential"]["asn_healthy"].as_f64().unwrap()
    );
    let half = json["zone"]["sequential"]["half"].as_f64().unwrap();
    assert!(half > 0.7 && half < 0.9);

    gate()
        .args(["plan", "--healthy", "90%", "--regressed", "70%"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "  single plan      between 70% and 90% the verdict can go either way: at 80.0% it passes half the time\n",
        ))
        .stdout(predicate::str::contains(
            "to narrow it to 80%–90% at the same risks: a single plan of 109 trials",
        ));
}

#[test]
fn init_states_the_zone_of_the_plan_it_wrote() {
    let d = tempfile::tempdir().unwrap();
    std::fs::write(
        d.path().join("test_a.py"),
        "def test_a():\n    assert True\n",
    )
    .unwrap();
    gate()
        .current_dir(d.path())
        .arg("init")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "note: between 70% and 90% the verdict can go either way: at 80.0% it passes half the time\n",
        ));
}

#[test]
fn the_run_summary_states_the_zone_and_hides_the_score_vector_with_retries_off() {
    let f = Fixture::new(PLAN_90_70);
    f.run(&[])
        .success()
        .stdout(predicate::str::contains(
            "  zone       between 70% and 90% the verdict can go either way",
        ))
        .stdout(predicate::str::contains("within budget").not());
}

#[test]
fn the_score_vector_shows_when_a_task_reports_attempts_of_its_own() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  single: {n: 3, c: 0}\ntasks:\n  - id: refund\n    run: \"echo '{\\\"attempts\\\": 2}' > $GATE_RESULT\"\n",
    );
    f.run(&[])
        .success()
        .stdout(predicate::str::contains(
            "  success    first-attempt 0.0% (0/3) · within budget 100.0% (3/3) · recovery 100.0% (3/3)\n             (3 graded trials retried inside the task",
        ));
}

/// The README quotes `gate verify`'s row count for `plans/examples/single.yaml`: it was 22 or
/// 23 depending on whether a parallel trial was still in flight at the decision.
#[test]
fn readme_verify_row_count_is_the_same_on_every_run() {
    let root = env!("CARGO_MANIFEST_DIR");
    for _ in 0..3 {
        let out = tempfile::tempdir().unwrap();
        let ledger = out.path().join("ledger.jsonl");
        gate()
            .current_dir(root)
            .args([
                "run",
                "plans/examples/single.yaml",
                "--quiet",
                "--no-step-summary",
                "--ledger",
            ])
            .arg(&ledger)
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .success();
        gate()
            .arg("verify")
            .arg(&ledger)
            .assert()
            .success()
            .stdout(predicate::str::contains(": ok: 22 rows, hash chain intact"));
    }
}

#[test]
fn run_and_check_without_a_path_use_gate_yaml_then_dot_config() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path();
    // Neither file: say where gate looked and that `gate init` writes one; exit 2.
    for cmd in ["run", "check"] {
        gate()
            .current_dir(dir)
            .arg(cmd)
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "neither `gate.yaml` nor `.config/gate.yaml` exists here: run `gate init`",
            ));
    }
    std::fs::create_dir(dir.join(".config")).unwrap();
    std::fs::write(
        dir.join(".config/gate.yaml"),
        PLAN_90_70.replace("id: refund", "id: from-dot-config"),
    )
    .unwrap();
    gate()
        .current_dir(dir)
        .arg("check")
        .assert()
        .success()
        .stdout(predicate::str::contains(".config/gate.yaml: ok · 1 task"));
    std::fs::write(dir.join("gate.yaml"), PLAN_90_70).unwrap();
    gate()
        .current_dir(dir)
        .arg("check")
        .assert()
        .success()
        .stdout(predicate::str::contains("gate.yaml: ok · 1 task"))
        .stdout(predicate::str::contains("refund  (line 5)"));
    gate()
        .current_dir(dir)
        .args(["run", "--quiet", "--no-step-summary"])
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .success()
        .stdout(predicate::str::contains("refund  PASS"));
}

#[test]
fn a_mistyped_subcommand_suggests_the_nearest_one() {
    gate()
        .arg("rn")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a similar subcommand exists: 'run'",
        ));
    gate()
        .arg("verfy")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "a similar subcommand exists: 'verify'",
        ));
}

#[test]
fn a_mistyped_plan_key_or_value_gets_a_did_you_mean_at_its_line_and_column() {
    let f = Fixture::new(&format!("{PLAN_90_70}    timout: 5s\n"));
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "plan.yaml:7:5: unknown field `timout`, expected one of",
        ))
        .stderr(predicate::str::contains("; did you mean `timeout`?"));
    let f = Fixture::new(&format!("{PLAN_90_70}policy:\n  on_inconclusive: fial\n"));
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "plan.yaml:8:20: unknown variant `fial`, expected one of fail, pass; did you mean `fail`?",
        ));
}

#[test]
fn man_prints_each_page_the_main_page_cites() {
    let out = gate().arg("man").output().unwrap();
    let main = String::from_utf8(out.stdout).unwrap();
    assert!(main.contains("gate\\-run(1)"));
    assert!(main.contains(".SH \"EXIT STATUS\""));
    assert!(!main.contains("EXTRA"));
    gate()
        .args(["man", "run"])
        .assert()
        .success()
        .stdout(predicate::str::contains(".TH gate-run 1"))
        .stdout(predicate::str::contains(
            ".SH \"EXIT STATUS\"\n.br\n0    PASS",
        ))
        .stdout(predicate::str::contains(".SH \"EXAMPLES\""));
    gate()
        .args(["man", "nope"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("no manual page for `nope`"));
    let d = tempfile::tempdir().unwrap();
    gate()
        .args(["man", "--out-dir"])
        .arg(d.path())
        .assert()
        .success();
    for page in ["gate.1", "gate-run.1", "gate-ingest.1", "gate-man.1"] {
        assert!(d.path().join(page).is_file(), "{page}");
    }
}

#[test]
fn run_help_lists_exit_codes_under_their_own_heading() {
    gate()
        .args(["run", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Exit codes:\n  0    PASS\n  1    FAIL\n  2    invalid plan or usage; no plan file (run `gate init`)",
        ));
}

#[test]
fn quiet_keeps_the_line_that_explains_a_harness_error() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  single: {n: 3, c: 0}\ntasks:\n  - id: agent\n    run: \"./no-such-agent\"\n",
    );
    f.run(&["--quiet"])
        .code(4)
        .stdout(predicate::str::contains(
            "agent  HARNESS ERROR: trial #1 attempt 1 could not be run",
        ))
        .stdout(
            predicate::str::contains("    | ")
                .and(predicate::str::contains("no-such-agent: not found")),
        );
}

#[test]
fn ingest_spells_the_kind_of_plan_sampling_and_still_reads_the_old_rule_flag() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<_> = std::fs::read_dir(root.join("tests/fixtures/junit/pytest-runs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let run = |flag: &str| {
        let d = tempfile::tempdir().unwrap();
        let out = gate()
            .arg("ingest")
            .args(&files)
            .arg("--ledger")
            .arg(d.path().join("l.jsonl"))
            .args([
                "--healthy",
                "90%",
                "--regressed",
                "70%",
                flag,
                "sequential",
                "--quiet",
                "--no-step-summary",
            ])
            .env_remove("GITHUB_STEP_SUMMARY")
            .arg("--json")
            .arg("-")
            .output()
            .unwrap();
        (
            out.status.code(),
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let (code, json, stderr) = run("--sampling");
    assert!(!stderr.contains("deprecated"), "{stderr}");
    assert!(
        json.contains("\"sequential\""),
        "a sequential rule was designed"
    );
    let (old_code, old_json, old_stderr) = run("--rule");
    assert!(old_stderr.contains("`gate ingest --rule` is deprecated, spell it `--sampling`"));
    assert_eq!(old_code, code);
    let verdicts = |j: &str| {
        let v: serde_json::Value = serde_json::from_str(j).unwrap();
        v["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["verdict"].clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(verdicts(&old_json), verdicts(&json));
}

#[test]
fn the_docs_spell_the_actions_repository_one_way() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut docs = vec![root.join("README.md")];
    docs.extend(
        std::fs::read_dir(root.join("docs"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "md")),
    );
    for doc in docs {
        let text = std::fs::read_to_string(&doc).unwrap();
        for line in text.lines().filter(|l| l.contains("uses: OWNER/")) {
            assert!(
                line.contains("uses: OWNER/gate@"),
                "{}: {line}",
                doc.display()
            );
        }
        assert!(!text.contains("OWNER/REPO"), "{}", doc.display());
    }
}
