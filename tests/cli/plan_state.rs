//! Everything the plan names is gate's state (issue 29, breaks 2, 3, 11, 12 and 14): the
//! `check:` grader and the scripts `run`/`check` name, `fixtures:`, the earlier stages'
//! `--after` ledgers and the base checkout of a compare task. A trial cannot change them
//! (the box makes them read-only), a change where the box is off means no verdict, and a
//! stage ledger of another CI run is refused. Each test is named after the break it pins.

use std::path::Path;

use gate::runner::sandbox::landlock_abi;
use predicates::prelude::*;

use crate::common::*;

/// Whether the box's filesystem wall stands here; when not, say which test is skipped.
fn has_landlock(test: &str) -> bool {
    let abi = landlock_abi();
    if abi < 1 {
        eprintln!("{test}: skipped, this kernel has no Landlock (the box's filesystem wall)");
    }
    abi >= 1
}

/// Whether the box's mount layer can be made here; when not, say which test is skipped.
fn has_mounts(test: &str) -> bool {
    match gate::runner::mounts::available() {
        Ok(_) => true,
        Err(why) => {
            eprintln!("{test}: skipped, no mount layer here: {why}");
            false
        }
    }
}

/// A task whose answer is wrong and whose `run` rewrites the grader `graders/check.sh` to
/// `exit 0`; the grader wants `42` in `answer.txt`. (A grader directly in the task's folder
/// is refused at load with the box on: review 5, P1.)
const GRADER_REWRITE: &str = "version: 1\nsampling: {single: {n: 3, c: 0}}\n{POLICY}tasks:\n  - id: agent\n    run: |\n      printf '#!/bin/sh\\nexit 0\\n' > graders/check.sh\n      echo wrong > answer.txt\n    check: sh graders/check.sh\n";

const GRADER: &str = "#!/bin/sh\ngrep -q 42 answer.txt\n";

fn grader_fixture(policy: &str) -> Fixture {
    let f = Fixture::new(&GRADER_REWRITE.replace("{POLICY}", policy));
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(f.path("graders/check.sh"), GRADER).unwrap();
    f
}

#[test]
fn break_2_a_task_cannot_rewrite_the_check_grader_beside_the_plan() {
    let test = "break_2_a_task_cannot_rewrite_the_check_grader_beside_the_plan";
    if !has_landlock(test) {
        return;
    }
    // With the mount layer where this machine has it, then in the Landlock fallback.
    let mut fallback = vec![true];
    if has_mounts(test) {
        fallback.push(false);
    }
    for no_mounts in fallback {
        let f = grader_fixture("");
        let mut cmd = f.command(&[]);
        if no_mounts {
            cmd.env("GATE_SANDBOX_NO_MOUNTS", "1");
        } else {
            cmd.env_remove("GATE_SANDBOX_NO_MOUNTS");
        }
        cmd.assert()
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert_eq!(
            read(&f.path("graders/check.sh")),
            GRADER,
            "no mounts: {no_mounts}"
        );
    }
}

#[test]
fn break_2_a_grader_rewritten_where_the_box_is_off_publishes_no_verdict() {
    let f = grader_fixture("policy: {sandbox: off}\n");
    f.run(&[])
        .code(4)
        .stdout(predicate::str::contains("HARNESS ERROR"))
        .stderr(predicate::str::contains("check.sh` changed during the run"));
}

/// A task whose trials each rewrite the fixture `data/data.txt` (first trial `1`, then `2`, …).
const FIXTURE_REWRITE: &str = "version: 1\nsampling: {single: {n: 3, c: 1}}\n{POLICY}tasks:\n  - id: agent\n    run: 'echo \"$GATE_TRIAL\" > data/data.txt; true'\n    fixtures: [data/data.txt]\n";

#[test]
fn break_12_a_trial_cannot_rewrite_a_fixture_for_the_later_trials() {
    let test = "break_12_a_trial_cannot_rewrite_a_fixture_for_the_later_trials";
    if !has_landlock(test) {
        return;
    }
    let f = Fixture::new(&FIXTURE_REWRITE.replace("{POLICY}", ""));
    std::fs::create_dir(f.path("data")).unwrap();
    std::fs::write(f.path("data/data.txt"), "the data\n").unwrap();
    f.run(&[]).code(0);
    assert_eq!(read(&f.path("data/data.txt")), "the data\n");
}

#[test]
fn break_12_a_fixture_rewritten_where_the_box_is_off_publishes_no_verdict() {
    let f = Fixture::new(&FIXTURE_REWRITE.replace("{POLICY}", "policy: {sandbox: off}\n"));
    std::fs::create_dir(f.path("data")).unwrap();
    std::fs::write(f.path("data/data.txt"), "the data\n").unwrap();
    f.run(&[])
        .code(4)
        .stderr(predicate::str::contains("data.txt` changed during the run"));
}

#[test]
fn break_3_base_checked_out_inside_heads_folder_is_refused() {
    // Head's trials may write their working folder: a base in `base/` inside it is theirs to
    // rewrite (`printf 'exit 1' > base/agent.sh`: a regressed head then wins every pair).
    let plan = "version: 1\nbase: {cwd: base}\nsampling: {compare: {odds_ratio: 3}}\ntasks:\n  - id: t\n    run: ./agent.sh\n";
    let f = Fixture::new(plan);
    std::fs::create_dir(f.path("base")).unwrap();
    for dir in [f.dir.path(), &f.path("base")] {
        std::fs::write(dir.join("agent.sh"), "#!/bin/sh\nexit 0\n").unwrap();
    }
    for args in [&["run", "plan.yaml"][..], &["check", "plan.yaml"]] {
        gate()
            .current_dir(f.dir.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "`base.cwd` `base` lies inside head's working folder",
            ))
            .stderr(predicate::str::contains("check base out beside head"));
    }
    assert!(!f.path("gate-out").exists());
    // A writable root over a side is the same hole.
    let over = "version: 1\nbase: {cwd: ../base}\nsampling: {compare: {odds_ratio: 3}}\npolicy: {sandbox: {writable: [..]}}\ntasks:\n  - id: t\n    run: ./agent.sh\n";
    std::fs::create_dir(f.path("side")).unwrap();
    std::fs::write(f.path("side/plan.yaml"), over).unwrap();
    gate()
        .current_dir(f.path("side"))
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`policy.sandbox.writable`"))
        .stderr(predicate::str::contains("holds head's working folder"));
    // Beside each other, the same sides run.
    let beside = "version: 1\nbase: {cwd: ../base}\nsampling: {compare: {odds_ratio: 3}}\ntasks:\n  - id: t\n    run: ./agent.sh\n    cwd: .\n";
    std::fs::create_dir(f.path("head")).unwrap();
    std::fs::write(f.path("head/plan.yaml"), beside).unwrap();
    std::fs::copy(f.path("agent.sh"), f.path("head/agent.sh")).unwrap();
    gate()
        .current_dir(f.path("head"))
        .args(["check", "plan.yaml"])
        .assert()
        .success();
}

/// A staged plan whose stage-2 trial 10 (with `ATTACK` set) removes the stage-1 ledger and
/// runs stage 1 again itself, with every trial passing, into the `--after` ledger's path.
const NESTED_STAGE: &str = r#"version: 1
sampling:
  sequential: {healthy: 0.9, regressed: 0.7, alpha: 0.05, beta: 0.1, stage: 9}
tasks:
  - id: t
    run: |
      if [ "$GATE_TRIAL" = 10 ] && [ -n "$ATTACK" ]; then
        rm -f s1/ledger.jsonl s1/ledger.jsonl.lock && echo escaped
        ATTACK= NOFAIL=1 "$GATE" run plan.yaml --stage 1 --ledger s1/ledger.jsonl --no-step-summary && echo escaped
      fi
      case $GATE_TRIAL in 3|14) test -n "$NOFAIL" || exit 1;; esac
"#;

fn stage(f: &Fixture, stage: u64, env: &[(&str, &str)]) -> assert_cmd::assert::Assert {
    let mut cmd = gate();
    cmd.current_dir(f.dir.path())
        .args(["run", "plan.yaml", "--no-step-summary", "--stage"])
        .arg(stage.to_string())
        .args(["--ledger", &format!("s{stage}/ledger.jsonl")])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("GITHUB_RUN_ID")
        .env_remove("GITHUB_RUN_ATTEMPT")
        .envs(env.iter().copied());
    if stage > 1 {
        cmd.args(["--after", "s1/ledger.jsonl"]);
    }
    cmd.assert()
}

#[test]
fn break_11_a_stage_2_task_cannot_rewrite_the_after_ledger_with_a_nested_gate_run() {
    let test = "break_11_a_stage_2_task_cannot_rewrite_the_after_ledger_with_a_nested_gate_run";
    if !has_landlock(test) {
        return;
    }
    let f = Fixture::new(NESTED_STAGE);
    stage(&f, 1, &[]).code(5);
    let s1 = std::fs::read(f.path("s1/ledger.jsonl")).unwrap();
    let gate_bin = assert_cmd::cargo::cargo_bin("gate");
    let gate_bin = gate_bin.to_str().unwrap();
    stage(&f, 2, &[("ATTACK", "1"), ("GATE", gate_bin)]).code(0);
    assert_eq!(std::fs::read(f.path("s1/ledger.jsonl")).unwrap(), s1);
    let report = gate()
        .current_dir(f.dir.path())
        .args([
            "report",
            "s1/ledger.jsonl",
            "s2/ledger.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(0);
    // The real stages: one failure in each, PASS after stage 2.
    let out = String::from_utf8_lossy(&report.get_output().stdout).into_owned();
    assert!(out.contains("failed 2"), "{out}");
}

#[test]
fn break_11_an_after_ledger_rewritten_where_the_box_is_off_publishes_no_verdict() {
    let f = Fixture::new(&NESTED_STAGE.replace("tasks:", "policy: {sandbox: off}\ntasks:"));
    stage(&f, 1, &[]).code(5);
    let gate_bin = assert_cmd::cargo::cargo_bin("gate");
    stage(
        &f,
        2,
        &[("ATTACK", "1"), ("GATE", gate_bin.to_str().unwrap())],
    )
    .code(4)
    .stderr(predicate::str::contains(
        "ledger.jsonl` changed during the run",
    ));
}

#[test]
fn break_14_a_stage_1_ledger_of_another_ci_run_is_refused() {
    let f = Fixture::new(NESTED_STAGE);
    let run = |id: &'static str| [("GITHUB_RUN_ID", id), ("GITHUB_RUN_ATTEMPT", "1")];
    stage(&f, 1, &run("1001")).code(5);
    // `--after` refuses it before any trial.
    stage(&f, 2, &run("2002"))
        .code(2)
        .stderr(predicate::str::contains(
            "the earlier stage ran in attempt 1 of CI run 1001, this stage in attempt 1 of CI run 2002",
        ));
    assert!(!Path::new(&f.path("s2/ledger.jsonl")).exists());
    // A stage 2 of run 2002 (after that run's own stage 1) is not merged with run 1001's.
    std::fs::rename(f.path("s1"), f.path("s1-1001")).unwrap();
    stage(&f, 1, &run("2002")).code(5);
    stage(&f, 2, &run("2002")).code(0);
    gate()
        .current_dir(f.dir.path())
        .args(["report", "s1-1001/ledger.jsonl", "s2/ledger.jsonl", "--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "(stage 1) ran in attempt 1 of CI run 1001 but `s2/ledger.jsonl` (stage 2) ran in attempt 1 of CI run 2002",
        ));
    gate()
        .current_dir(f.dir.path())
        .args([
            "report",
            "s1/ledger.jsonl",
            "s2/ledger.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(0);
}

// The breaks an adversarial review of the change above found (issue 29, review 1), each
// named after the reviewer's attack. Where the box is off, a named file a trial changed
// means no verdict (exit 4): that is what shows the file is named, box or no box.

/// `policy: {sandbox: off}`, one trial (a second would run the attack's grader) that writes a wrong answer, then `EXTRA` (the attack).
fn box_off(extra: &str, check: &str) -> Fixture {
    Fixture::new(&format!(
        "version: 1\nsampling: {{single: {{n: 1, c: 0}}}}\npolicy: {{sandbox: off}}\ntasks:\n  - id: agent\n{extra}    run: |\n      echo wrong > answer.txt\n{{RUN}}\n    check: {check}\n"
    ))
}

/// Sets the attack's lines in a [`box_off`] plan.
trait WithRun {
    fn with_run(self, lines: &str) -> Self;
}

impl WithRun for Fixture {
    fn with_run(self, lines: &str) -> Self {
        let plan = read(&self.plan()).replace("{RUN}", lines);
        std::fs::write(self.plan(), plan).unwrap();
        self
    }
}

/// Run `f` with a bound on the time: a hang is a failure, not a stuck suite.
fn run_bounded(f: &Fixture) -> assert_cmd::assert::Assert {
    f.command(&[])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
}

#[test]
fn review_a13_a_grader_that_turns_itself_into_a_fifo_does_not_hang_the_end_of_run_check() {
    let f = box_off("", "sh check.sh").with_run("      true");
    std::fs::write(
        f.path("check.sh"),
        "rm -f check.sh; mkfifo check.sh; exit 0\n",
    )
    .unwrap();
    run_bounded(&f)
        .code(4)
        .stderr(predicate::str::contains("check.sh` changed during the run"));
}

#[test]
fn review_a12_a_grader_re_pointed_at_dev_zero_is_not_read_without_bound() {
    let f = box_off("", "sh check.sh").with_run("      true");
    std::fs::write(
        f.path("check.sh"),
        "rm -f check.sh; ln -s /dev/zero check.sh; exit 0\n",
    )
    .unwrap();
    run_bounded(&f)
        .code(4)
        .stderr(predicate::str::contains("check.sh` changed during the run"));
}

/// The attack's run line: rewrite `FILE` to a grader that passes, named through a glob so
/// that the `run:` line itself names nothing.
fn rewrite(file: &str) -> String {
    format!("      for f in {file}*; do printf 'exit 0\\n' > \"$f\"; done")
}

fn assert_named(f: &Fixture, file: &str) {
    run_bounded(f)
        .code(4)
        .stderr(predicate::str::contains(format!(
            "{file}` changed during the run"
        )));
}

#[test]
fn review_a1_a_grader_without_extension_or_exec_bit_after_sh_is_protected() {
    let f = box_off("", "sh grade").with_run(&rewrite("grade"));
    std::fs::write(f.path("grade"), "grep -q 42 answer.txt\n").unwrap();
    assert_named(&f, "grade");
}

#[test]
fn review_a5_a_grader_named_through_the_plans_env_is_protected() {
    let f = box_off("    env: {GRADER: grade}\n", "sh \"$GRADER\"").with_run(&rewrite("grade"));
    std::fs::write(f.path("grade"), "grep -q 42 answer.txt\n").unwrap();
    assert_named(&f, "grade");
}

#[test]
fn review_a8_a_grader_after_cd_is_looked_up_in_that_folder() {
    let f = box_off("", "cd graders && sh check.sh").with_run(&rewrite("graders/check.sh"));
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(f.path("graders/check.sh"), "grep -q 42 ../answer.txt\n").unwrap();
    assert_named(&f, "graders/check.sh");
}

#[test]
fn review_a9_a_python_module_run_with_dash_m_is_protected() {
    let f = box_off("", "python3 -m grader")
        .with_run("      for f in grader.py*; do echo pass > \"$f\"; done");
    std::fs::write(
        f.path("grader.py"),
        "import sys\nsys.exit(open('answer.txt').read().strip() != '42')\n",
    )
    .unwrap();
    assert_named(&f, "grader.py");
}

#[test]
fn review_a17_a_grader_found_through_the_plans_own_path_is_protected() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = box_off("    env: {PATH: \"bin:/usr/bin:/bin\"}\n", "grade")
        .with_run(&rewrite("bin/grade"));
    std::fs::create_dir(f.path("bin")).unwrap();
    std::fs::write(f.path("bin/grade"), "#!/bin/sh\ngrep -q 42 answer.txt\n").unwrap();
    std::fs::set_permissions(f.path("bin/grade"), std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_named(&f, "bin/grade");
}

#[test]
fn review_a1_a_grader_without_extension_cannot_be_rewritten_in_the_box() {
    let test = "review_a1_a_grader_without_extension_cannot_be_rewritten_in_the_box";
    if !has_landlock(test) {
        return;
    }
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: agent\n    run: |\n      printf 'exit 0\\n' > graders/grade\n      echo wrong > answer.txt\n    check: sh graders/grade\n",
    );
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(f.path("graders/grade"), "grep -q 42 answer.txt\n").unwrap();
    f.run(&[])
        .code(1)
        .stdout(predicate::str::contains("agent  FAIL"));
    assert_eq!(read(&f.path("graders/grade")), "grep -q 42 answer.txt\n");
}

#[test]
fn review_a3_a_symlinked_grader_in_the_plans_folder_is_refused() {
    let f = Fixture::new(&GRADER_REWRITE.replace("{POLICY}", ""));
    std::fs::create_dir(f.path("lib")).unwrap();
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(f.path("lib/real.sh"), GRADER).unwrap();
    std::os::unix::fs::symlink("../lib/real.sh", f.path("graders/check.sh")).unwrap();
    for args in [&["run", "plan.yaml"][..], &["check", "plan.yaml"]] {
        gate()
            .current_dir(f.dir.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "check.sh` is a symbolic link to `",
            ))
            .stderr(predicate::str::contains("lib/real.sh` in the plan instead"));
    }
    assert!(!f.path("gate-out").exists());
}

#[test]
fn review_c1_base_linked_inside_head_runs_where_the_link_pointed_when_the_plan_was_read() {
    // head/base -> ../base-real. Head's agent re-points the link at `evil/`, a copy of
    // base's byte-identical agent with sabotaged data: base's trials must still run in
    // base-real, so a head that always fails against a base that always passes is FAIL.
    let f = Fixture::new("");
    let (head, real) = (f.path("head"), f.path("base-real"));
    std::fs::create_dir(&head).unwrap();
    std::fs::create_dir(&real).unwrap();
    std::fs::write(
        head.join("plan.yaml"),
        "version: 1\nbase: {cwd: base}\nsampling: {compare: {odds_ratio: 3}}\ntasks:\n  - id: t\n    run: sh agent.sh\n",
    )
    .unwrap();
    std::fs::write(real.join("agent.sh"), "grep -q good prompt.txt\n").unwrap();
    std::fs::write(real.join("prompt.txt"), "good\n").unwrap();
    std::fs::write(
        head.join("agent.sh"),
        "if [ -e base/prompt.txt ] && [ ! -d evil ]; then mkdir evil && cp base/agent.sh evil/ && echo bad > evil/prompt.txt && ln -sfn evil base.new && mv -T base.new base; fi\nexit 1\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../base-real", head.join("base")).unwrap();
    gate()
        .current_dir(&head)
        .args(["run", "plan.yaml", "--no-step-summary", "-j", "1"])
        .env_remove("GITHUB_ACTIONS")
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("FAIL"));
}

#[test]
fn review_16_the_after_refusal_outside_ci_reads_as_a_sentence() {
    let f = Fixture::new(NESTED_STAGE);
    stage(
        &f,
        1,
        &[("GITHUB_RUN_ID", "7"), ("GITHUB_RUN_ATTEMPT", "1")],
    )
    .code(5);
    stage(&f, 2, &[]).code(2).stderr(predicate::str::contains(
        "the earlier stage ran in attempt 1 of CI run 7, this stage outside GitHub Actions:",
    ));
}
