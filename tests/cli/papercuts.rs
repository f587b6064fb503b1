//! The papercuts a new user met in the first hour (issue 32): rates written as bare
//! percentages, stage runs that continue, `gate ingest --base` with options after `--`,
//! `gate man --out-dir`, the words of a few messages, and the README's own commands.

use predicates::prelude::*;

use crate::common::{Fixture, gate};

#[test]
fn a_rate_given_as_90_suggests_90_percent_or_0_9() {
    gate()
        .args(["plan", "--healthy", "90", "--regressed", "70%"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`--healthy` must be strictly between 0 and 1, got `90`; did you mean `90%` or `0.9`?",
        ));
    gate()
        .args([
            "plan",
            "--healthy",
            "90%",
            "--regressed",
            "70%",
            "--alpha",
            "5",
        ])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "got `5`; did you mean `5%` or `0.05`?",
        ));
}

#[test]
fn a_rate_given_as_0_9_percent_says_it_was_read_as_0_009() {
    gate()
        .args(["plan", "--healthy", "0.9%", "--regressed", "0.7%"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: `--healthy` was read as 0.9% = 0.009; did you mean `90%`?",
        ))
        .stderr(predicate::str::contains(
            "warning: `--regressed` was read as 0.7% = 0.007; did you mean `70%`?",
        ));
    let f = Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 0.9%, regressed: 0.7%}\ntasks:\n  - id: t\n    run: \"true\"\n",
    );
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "warning: task `t`: `healthy` was read as 0.9% = 0.009; did you mean `90%`?",
        ));
    // A rate of 1% or more is read without a word.
    gate()
        .args(["plan", "--healthy", "90%", "--regressed", "70%"])
        .assert()
        .success()
        .stderr(predicate::str::contains("warning").not());
}

#[test]
fn a_bad_top_level_rate_is_blamed_on_the_top_level_sampling_not_a_task() {
    let f = Fixture::new(
        "version: 1\nsampling:\n  design: {healthy: 90, regressed: 70%}\ntasks:\n  - id: t\n    run: \"true\"\n",
    );
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "plan.yaml:3:3: the top-level `sampling`: `healthy` must be strictly between 0 and 1, got 90; did you mean `90%` or `0.9`?",
        ))
        .stderr(predicate::str::contains("task `t`").not());
}

const STAGED: &str = "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}\ntasks:\n  - id: t\n    run: 'case $GATE_TRIAL in 3|5) exit 1;; esac'\n";

#[test]
fn a_task_undecided_after_a_stage_says_it_continues_not_trials_missing() {
    let f = Fixture::new(STAGED);
    f.run(&["--stage", "1", "--quiet", "--summary", "out/summary.md"])
        .code(5)
        .stdout(predicate::str::contains(
            "t  CONTINUE: undecided after stage 1 (9 graded trials, 2 failed); it continues in stage 2\n\
             gate  CONTINUE: no verdict after stage 1",
        ))
        .stdout(predicate::str::contains("trials missing").not());
    let md = std::fs::read_to_string(f.path("out/summary.md")).expect("summary");
    assert!(
        md.contains("### t — ⏩ CONTINUE\n\n> undecided after stage 1 (9 graded trials, 2 failed); it continues in stage 2"),
        "{md}"
    );
    assert!(!md.contains("trials missing"), "{md}");
}

/// Runs 1..=30 of one test case `a` on each side, as JUnit files `base-KK.xml` and
/// `head-KK.xml` in `dir`; head fails its odd runs.
fn base_and_head(dir: &std::path::Path) -> (Vec<String>, Vec<String>) {
    let write = |side: &str, k: u32, fails: bool| {
        let fail = if fails {
            r#"<failure message="boom">x</failure>"#
        } else {
            ""
        };
        std::fs::write(
            dir.join(format!("{side}-{k:02}.xml")),
            format!(
                r#"<?xml version="1.0"?><testsuites><testsuite name="s" tests="1" timestamp="2026-12-03T10:{k:02}:00.{side}"><testcase classname="suite" name="a" time="0.01">{fail}</testcase></testsuite></testsuites>"#
            ),
        )
        .unwrap();
    };
    for k in 1..=30 {
        write("base", k, false);
        write("head", k, k % 2 == 1);
    }
    let files = |side: &str| (1..=30).map(|k| format!("{side}-{k:02}.xml")).collect();
    (files("base"), files("head"))
}

#[test]
fn ingest_refuses_an_option_after_dashes_naming_it_and_counts_base_files_in_its_header() {
    let dir = tempfile::tempdir().unwrap();
    let (base, head) = base_and_head(dir.path());
    // `--ledger` after `--` is not a result file: refused, named, before any file is read.
    gate()
        .current_dir(dir.path())
        .args([
            "ingest",
            "--odds-ratio",
            "3",
            "--assume-retries-off",
            "--base",
        ])
        .args(&base)
        .arg("--")
        .args(&head)
        .args(["--ledger", "l.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`--ledger` came after `--`, which ends the options",
        ))
        .stderr(predicate::str::contains("cannot read the result file").not());
    assert!(!dir.path().join("l.jsonl").exists());
    // Before `--` it works, and the header counts both sides' files.
    gate()
        .current_dir(dir.path())
        .args(["ingest", "--odds-ratio", "3", "--assume-retries-off"])
        .args(["--ledger", "l.jsonl", "--no-step-summary", "--base"])
        .args(&base)
        .arg("--")
        .args(&head)
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "60 files (30 base, 30 head) read as",
        ));
}

#[test]
fn man_out_dir_creates_the_folder_and_every_page_carries_the_version() {
    let dir = tempfile::tempdir().unwrap();
    gate()
        .current_dir(dir.path())
        .args(["man", "--out-dir", "mandir/sub"])
        .assert()
        .success()
        .stdout(predicate::str::contains("manual pages to mandir/sub"));
    let version = env!("CARGO_PKG_VERSION");
    let run = std::fs::read_to_string(dir.path().join("mandir/sub/gate-run.1")).unwrap();
    assert!(
        run.contains(&format!(".TH gate-run 1  \"gate {version}\"")),
        "{}",
        run.lines().find(|l| l.starts_with(".TH")).unwrap_or("")
    );
    let main = std::fs::read_to_string(dir.path().join("mandir/sub/gate.1")).unwrap();
    assert!(main.contains(&format!(".TH gate 1  \"gate {version}\"")));
}

#[test]
fn one_failure_is_singular_in_the_rule_reason() {
    // The calibrated rule PASSes 90% vs 70% with 1 failure in 15 trials.
    let f = Fixture::new(
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7}\ntasks:\n  - id: t\n    run: 'test \"$GATE_TRIAL\" != 1'\n",
    );
    f.run(&["--quiet"])
        .success()
        .stdout(predicate::str::contains(
            "t  PASS: 1 failure in 15 trials is within the calibrated PASS bound",
        ))
        .stdout(predicate::str::contains("1 failures").not());
}

#[test]
fn a_first_fail_headline_shows_the_first_line_of_a_message_not_a_literal_backslash_n() {
    let dir = tempfile::tempdir().unwrap();
    for k in 1..=3 {
        let fail = if k == 2 {
            "<failure message=\"assert 0.959 &lt; 0.95&#10; +  where 0.959 = score()\">x</failure>"
        } else {
            ""
        };
        std::fs::write(
            dir.path().join(format!("run-{k}.xml")),
            format!(
                r#"<?xml version="1.0"?><testsuites><testsuite name="s" tests="1" timestamp="2026-12-03T10:00:0{k}"><testcase classname="m" name="t" time="0.01">{fail}</testcase></testsuite></testsuites>"#
            ),
        )
        .unwrap();
    }
    gate()
        .current_dir(dir.path())
        .args([
            "ingest",
            "run-1.xml",
            "run-2.xml",
            "run-3.xml",
            "--single",
            "3,0",
        ])
        .args([
            "--assume-retries-off",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "first fail #002: assert 0.959 < 0.95 …\n",
        ))
        .stdout(predicate::str::contains("\\n").not());
}

#[test]
fn suite_help_does_not_offer_the_refused_plan_flag() {
    gate()
        .args(["suite", "--help"])
        .assert()
        .success()
        .stdout(predicate::str::contains("--plan").not())
        .stdout(predicate::str::contains("--healthy"));
    // Still refused with what to do instead.
    gate()
        .args(["suite", "--plan", "p.yaml", "--", "true"])
        .assert()
        .code(2);
}

#[test]
fn init_in_an_unrecognised_folder_prints_a_minimal_plan_that_checks() {
    let dir = tempfile::tempdir().unwrap();
    let out = gate()
        .current_dir(dir.path())
        .args(["init"])
        .assert()
        .code(2)
        .get_output()
        .clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("plans/examples/"), "{err}");
    assert!(err.contains("`gate schema plan`"), "{err}");
    let plan = &err[err.find("version: 1").expect("a plan in the message")..];
    std::fs::write(dir.path().join("gate.yaml"), plan).unwrap();
    gate()
        .current_dir(dir.path())
        .args(["check"])
        .assert()
        .success()
        .stdout(predicate::str::contains("gate.yaml: ok · 1 task"));
}

#[test]
fn gate_suite_and_gate_ingest_refuse_a_malformed_single_in_the_same_words() {
    // One parser of `--single N,C` for both commands (commands::parse_single): the same
    // message, exit 2, before anything runs or is read.
    let d = tempfile::tempdir().unwrap();
    let ledger = d.path().join("out/ledger.jsonl");
    for bad in ["20", "20,x", "a,3"] {
        let words = format!(
            "`--single {bad}`: expected N,C (runs, failures tolerated), e.g. `--single 20,3`"
        );
        gate()
            .current_dir(d.path())
            .args(["suite", "--single", bad, "--ledger"])
            .arg(&ledger)
            .args(["--", "true"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(words.as_str()));
        gate()
            .current_dir(d.path())
            .args(["ingest", "--single", bad, "--ledger"])
            .arg(&ledger)
            .arg("missing.xml")
            .assert()
            .code(2)
            .stderr(predicate::str::contains(words.as_str()));
    }
    assert!(!ledger.exists(), "nothing ran, no ledger was written");
}

/// The over-refusal audit of round 4: `python3 -m unittest discover -s tests`, the stock way
/// to run a unittest suite, was refused wholesale ("a trial could add one"). Discovery is
/// now accepted from a folder of the plan's tests that no folder the trials write lies at or
/// beneath (and none is linked into), as pytest given `tests/` is, and it grades: a right
/// answer PASSes, a wrong one FAILs, in the box. Discovery over a folder the trials write is
/// still refused: a trial's `work/__init__.py` and `work/test_evil.py` would be imported.
#[test]
fn unittest_discovery_from_the_plans_tests_folder_runs_and_grades() {
    use crate::common::{
        assert_refused_at_load, box_modes, has, run_in, skip_or_fail, write_files,
    };
    let test = "unittest_discovery_from_the_plans_tests_folder_runs_and_grades";
    if !has("python3") {
        skip_or_fail(test, "python3", "python3 is not installed");
        return;
    }
    let plan = |check: &str| {
        format!(
            "version: 1\nsampling:\n  single: {{n: 2, c: 0}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    check: {}\n    writes: [work]\n",
            serde_json::to_string(check).unwrap()
        )
    };
    let fixture = |check: &str, answer: &str| {
        let f = Fixture::new(&plan(check));
        write_files(
            &f,
            &[
                (
                    "agent.sh",
                    &format!(
                        "mkdir -p work && echo {answer} > work/answer.txt\nprintf '' > work/__init__.py\nprintf 'import unittest\\nclass T(unittest.TestCase):\\n    def test_x(self): pass\\n' > work/test_evil.py\n"
                    ),
                ),
                ("tests/__init__.py", ""),
                (
                    "tests/test_answer.py",
                    "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(open('work/answer.txt').read().strip(), '42')\n",
                ),
            ],
        );
        std::fs::create_dir_all(f.path("work")).unwrap();
        f
    };
    for line in [
        "python3 -m unittest discover -s tests",
        "python3 -m unittest discover tests -v",
        "python3 -I -m unittest discover -s tests -t .",
    ] {
        crate::common::check(&fixture(line, "42")).code(0);
        for no_mounts in box_modes(test) {
            run_in(&fixture(line, "42"), no_mounts).code(0);
            run_in(&fixture(line, "41"), no_mounts).code(1);
        }
    }
    for (line, what) in [
        (
            "python3 -m unittest",
            "discovering from `.`, at or above a folder the trials write",
        ),
        ("python3 -m unittest -v", "discovering from `.`"),
        ("python3 -m unittest -k test", "discovering from `.`"),
        ("python3 -m unittest DISCOVER", "discovering from `.`"),
        (
            "python3 -m unittest discover -s work",
            "discovering from `work`",
        ),
        (
            "python3 -m unittest discover tests -s .",
            "discovering from `.`",
        ),
        (
            "python3 -m unittest discover -s tests -t work",
            "top-level folder `work`",
        ),
        ("python3 -m unittest discover -s tests --bogus", "`--bogus`"),
        (
            "python3 -m unittest work.test_evil",
            "it imports `work.test_evil`",
        ),
    ] {
        assert_refused_at_load(&fixture(line, "41"), line, what);
    }
    let f = fixture("python3 -m unittest discover -s tests", "41");
    std::os::unix::fs::symlink("../work", f.path("tests/more")).unwrap();
    assert_refused_at_load(
        &f,
        "discover through a link",
        "is a link to a folder the trials write",
    );
}

/// A new user's first run of one bare `single: {n, c}` task ended its summary with
/// "multiplicity  unknown: no task records a healthy rate (agent)": over one task the
/// multiplicity cost is that task's own risk, so neither the terminal nor the Markdown
/// report shows the line (the JSON keeps its figures); a second task brings it back.
#[test]
fn a_single_task_shows_no_multiplicity_line_and_two_tasks_do() {
    let report = |yaml: &str| {
        let f = Fixture::new(yaml);
        let out = f
            .run(&["--summary", "r.md", "--json", "r.json"])
            .code(0)
            .get_output()
            .clone();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        let md = std::fs::read_to_string(f.path("r.md")).unwrap();
        let json: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(f.path("r.json")).unwrap()).unwrap();
        (text, md, json)
    };
    let (text, md, json) = report(
        "version: 1\nsampling:\n  single: {n: 2, c: 0}\ntasks:\n  - id: agent\n    run: \"true\"\n",
    );
    assert!(!text.contains("multiplicity"), "{text}");
    assert!(!md.contains("Multiplicity cost"), "{md}");
    assert_eq!(json["multiplicity"]["unknown"][0], "agent", "{json}");
    let (text, md, _) = report(
        "version: 1\nsampling:\n  single: {n: 2, c: 0}\ntasks:\n  - id: a\n    run: \"true\"\n  - id: b\n    run: \"true\"\n",
    );
    assert!(
        text.contains("multiplicity  unknown: no task records a healthy rate (a, b)"),
        "{text}"
    );
    assert!(md.contains("**Multiplicity cost:** unknown"), "{md}");
}
