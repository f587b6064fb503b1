//! The plan-state and box findings of review 5 (issue 29): files a trial adds beside a grader
//! (P1–P3), a `git` grader fooled through `.git` (P4), head reaching base through `/dev/shm`
//! (K1), a stage over another checkout's stage 1 (V3), a symlinked suite `results:` path
//! (X2) and the `dir/**` fixture glob (D1). Each test is named after the finding it pins.

use predicates::prelude::*;

use crate::common::*;

/// A Python grader in `graders/` that puts its own folder on `sys.path` and imports its
/// helper; the agent answers wrong, then forges `graders/__pycache__/helper.*.pyc` (the
/// source's mtime and size in its header, so Python runs it) whose `ok()` is `True`.
const PYC_PLAN: &str = "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    check: python3 -I graders/check.py\n    fixtures: [\"graders/**/*\"]\n";

const PYC_AGENT: &str = r#"echo wrong > result.txt
mkdir -p graders/__pycache__
python3 - <<'PY'
import importlib.util, marshal, os
src = "graders/helper.py"; st = os.stat(src)
code = compile("def ok():\n    return True\n", src, "exec")
head = importlib.util.MAGIC_NUMBER + (0).to_bytes(4, "little")
head += int(st.st_mtime).to_bytes(4, "little") + (st.st_size & 0xFFFFFFFF).to_bytes(4, "little")
open(importlib.util.cache_from_source(src), "wb").write(head + marshal.dumps(code))
PY
"#;

#[test]
fn review5_p1b_a_forged_pyc_beside_a_python_grader_does_not_pass_a_wrong_answer() {
    let test = "review5_p1b_a_forged_pyc_beside_a_python_grader_does_not_pass_a_wrong_answer";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    for no_mounts in box_modes(test) {
        let f = Fixture::new(PYC_PLAN);
        std::fs::create_dir(f.path("graders")).unwrap();
        std::fs::write(
            f.path("graders/helper.py"),
            "def ok():\n    return open('result.txt').read().strip() == 'correct'\n",
        )
        .unwrap();
        std::fs::write(
            f.path("graders/check.py"),
            "import os, sys\nsys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))\nimport helper\nsys.exit(0 if helper.ok() else 1)\n",
        )
        .unwrap();
        std::fs::write(f.path("agent.sh"), PYC_AGENT).unwrap();
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(
            !f.path("graders/__pycache__").exists(),
            "no mounts: {no_mounts}"
        );
    }
}

#[test]
fn review5_p1b_a_pyc_forged_in_an_existing_pycache_is_refused_too() {
    // `__pycache__` there before the run (the grader ran once on a developer's machine):
    // the folder rule covers the folders beneath a grader's, not only new ones.
    let test = "review5_p1b_a_pyc_forged_in_an_existing_pycache_is_refused_too";
    for no_mounts in box_modes(test) {
        let f = Fixture::new(
            "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: agent\n    run: 'echo forged > graders/cache/helper.pyc'\n    check: sh graders/check.sh\n",
        );
        std::fs::create_dir_all(f.path("graders/cache")).unwrap();
        std::fs::write(
            f.path("graders/check.sh"),
            "! test -s graders/cache/helper.pyc\n",
        )
        .unwrap();
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(!f.path("graders/cache/helper.pyc").exists());
    }
}

#[test]
fn review5_p2_a_conftest_beside_a_pytest_grader_does_not_pass_a_wrong_answer() {
    let test = "review5_p2_a_conftest_beside_a_pytest_grader_does_not_pass_a_wrong_answer";
    if !has("pytest") {
        skip_or_fail(test, "python3", "no pytest here");
        return;
    }
    // Since round 4, session 22, pytest run in a folder the trials write is refused unless
    // the task lists the folders its trials write (it reads `pytest.ini` and `conftest.py`
    // from the folders above its tests too); with `writes: [out]` the trial tries
    // `conftest.py` beside the tests and in the task's folder.
    let yaml = |writes: &str| {
        format!(
            "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n{writes}    check: pytest -q -p no:cacheprovider graders/test_state.py\n"
        )
    };
    assert_definition_refused(&Fixture::new(&yaml("")), "runs `pytest` in `");
    for no_mounts in box_modes(test) {
        let f = Fixture::new(&yaml("    writes: [out]\n"));
        std::fs::create_dir(f.path("graders")).unwrap();
        std::fs::create_dir(f.path("out")).unwrap();
        std::fs::write(
            f.path("graders/test_state.py"),
            "def test_result_is_correct():\n    assert open('out/result.txt').read().strip() == 'correct'\n",
        )
        .unwrap();
        std::fs::write(
            f.path("agent.sh"),
            "echo wrong > out/result.txt\nfor d in graders .; do cat > $d/conftest.py <<'PY'\nimport pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    out = yield\n    r = out.get_result()\n    r.outcome = 'passed'; r.longrepr = None\nPY\ndone\n",
        )
        .unwrap();
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(
            !f.path("graders/conftest.py").exists() && !f.path("conftest.py").exists(),
            "no mounts: {no_mounts}"
        );
    }
}

#[test]
fn review5_p3_a_node_modules_package_beside_a_node_grader_does_not_pass_a_wrong_answer() {
    let test =
        "review5_p3_a_node_modules_package_beside_a_node_grader_does_not_pass_a_wrong_answer";
    if !has("node") {
        skip_or_fail(test, "node", "no node here");
        return;
    }
    for no_mounts in box_modes(test) {
        let f = Fixture::new(
            "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    check: node graders/check.js\n    fixtures: [\"node_modules/**/*\"]\n",
        );
        std::fs::create_dir_all(f.path("graders")).unwrap();
        std::fs::create_dir_all(f.path("node_modules/same")).unwrap();
        // Review 26, 01: the grader's own `package.json`, read before any package.
        std::fs::create_dir_all(f.path("graders")).unwrap();
        std::fs::write(f.path("graders/package.json"), "{}\n").unwrap();
        std::fs::write(
            f.path("node_modules/same/index.js"),
            "module.exports = (a, b) => a === b;\n",
        )
        .unwrap();
        std::fs::write(
            f.path("graders/check.js"),
            "const same = require('same');\nconst got = require('fs').readFileSync('result.txt', 'utf8').trim();\nprocess.exit(same(got, 'correct') ? 0 : 1);\n",
        )
        .unwrap();
        std::fs::write(
            f.path("agent.sh"),
            "echo wrong > result.txt\nmkdir -p graders/node_modules/same && echo 'module.exports = () => true;' > graders/node_modules/same/index.js\n",
        )
        .unwrap();
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(
            !f.path("graders/node_modules").exists(),
            "no mounts: {no_mounts}"
        );
    }
}

#[test]
fn review5_p1_a_grader_directly_in_the_tasks_folder_is_refused_with_how_to_fix_it() {
    // The task's own folder cannot be made read-only without taking it from the task:
    // whatever it creates beside the grader, the grader may load.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: agent\n    run: 'true'\n    check: python3 check.py\n",
    );
    std::fs::write(f.path("check.py"), "import sys\n").unwrap();
    for args in [&["run", "plan.yaml"][..], &["check", "plan.yaml"]] {
        gate()
            .current_dir(f.dir.path())
            .args(args)
            .assert()
            .code(2)
            .stderr(predicate::str::contains("the `check:` grader `"))
            .stderr(predicate::str::contains("check.py` lies directly in `"))
            .stderr(predicate::str::contains(
                "move it into a subfolder (e.g. `graders/check.py`)",
            ));
    }
    assert!(!f.path("gate-out").exists());
    // A fixture there is the same hole; with the box off nothing is protected anyway.
    let fixture = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: agent\n    run: 'true'\n    fixtures: [helper.py]\n",
    );
    std::fs::write(fixture.path("helper.py"), "").unwrap();
    gate()
        .current_dir(fixture.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("the fixture `"));
    let off = read(&fixture.plan()).replace("tasks:", "policy: {sandbox: off}\ntasks:");
    std::fs::write(fixture.plan(), off).unwrap();
    gate()
        .current_dir(fixture.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(0);
}

#[test]
fn review5_p1_a_file_added_beside_a_grader_where_the_box_is_off_publishes_no_verdict() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\npolicy: {sandbox: off}\ntasks:\n  - id: agent\n    run: 'echo x > graders/json.py'\n    check: sh graders/check.sh\n",
    );
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(f.path("graders/check.sh"), "exit 0\n").unwrap();
    f.run(&[])
        .code(4)
        .stderr(predicate::str::contains("graders` changed during the run"));
}

#[test]
fn review5_p4_a_git_grader_is_not_fooled_through_the_tasks_git_folder() {
    let test = "review5_p4_a_git_grader_is_not_fooled_through_the_tasks_git_folder";
    if !has("git") {
        skip_or_fail(test, "git", "no git here");
        return;
    }
    for variant in [
        "git update-index --assume-unchanged config/prod.yaml",
        "git config filter.keep.clean 'git show HEAD:config/prod.yaml'; echo 'config/prod.yaml filter=keep' > .git/info/attributes",
    ] {
        for no_mounts in box_modes(test) {
            let f = Fixture::new(
                "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    check: git diff --quiet -- config/prod.yaml\n",
            );
            let git = |args: &[&str]| {
                let ok = std::process::Command::new("git")
                    .args(args)
                    .current_dir(f.dir.path())
                    .env("GIT_CONFIG_NOSYSTEM", "1")
                    .env("GIT_CONFIG_GLOBAL", "/dev/null")
                    .status()
                    .unwrap()
                    .success();
                assert!(ok, "git {args:?}");
            };
            std::fs::create_dir(f.path("config")).unwrap();
            std::fs::write(f.path("config/prod.yaml"), "replicas: 3\n").unwrap();
            std::fs::write(
                f.path("agent.sh"),
                format!("echo 'replicas: 0' > config/prod.yaml\n{variant}\n"),
            )
            .unwrap();
            git(&["init", "-q", "."]);
            git(&["add", "config", "agent.sh", "plan.yaml"]);
            git(&[
                "-c",
                "user.email=a@b",
                "-c",
                "user.name=a",
                "commit",
                "-qm",
                "base",
            ]);
            run_in(&f, no_mounts)
                .code(1)
                .stdout(predicate::str::contains("agent  FAIL"));
        }
    }
}

/// A compare whose base passes unless it finds head's poison in `/dev/shm`, and whose head
/// always fails after leaving it there: head must lose every discordant pair.
#[test]
fn review5_k1_head_cannot_reach_base_through_dev_shm_or_ipc() {
    let test = "review5_k1_head_cannot_reach_base_through_dev_shm_or_ipc";
    if !std::path::Path::new("/dev/shm").is_dir() {
        skip_or_fail(test, "landlock", "no /dev/shm here");
        return;
    }
    for no_mounts in box_modes(test) {
        let f = Fixture::new("");
        let (head, base) = (f.path("head"), f.path("base"));
        std::fs::create_dir(&head).unwrap();
        std::fs::create_dir(&base).unwrap();
        let name = format!("gate-k1-{}-{no_mounts}", std::process::id());
        std::fs::write(
            head.join("plan.yaml"),
            "version: 1\nbase: {cwd: ../base}\nsampling: {compare: {odds_ratio: 3}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n",
        )
        .unwrap();
        std::fs::write(
            head.join("agent.sh"),
            format!("echo bad > /dev/shm/{name} 2>/dev/null\nexit 1\n"),
        )
        .unwrap();
        std::fs::write(
            base.join("agent.sh"),
            format!("! test -e /dev/shm/{name}\n"),
        )
        .unwrap();
        let mut cmd = gate();
        cmd.current_dir(&head)
            .args(["run", "plan.yaml", "--no-step-summary", "-j", "2"])
            .env_remove("GITHUB_ACTIONS")
            .timeout(std::time::Duration::from_secs(120));
        if no_mounts {
            cmd.env("GATE_SANDBOX_NO_MOUNTS", "1");
        } else {
            cmd.env_remove("GATE_SANDBOX_NO_MOUNTS");
        }
        let out = cmd.assert().code(1);
        let _ = std::fs::remove_file(format!("/dev/shm/{name}"));
        out.stdout(predicate::str::contains("head lost all"))
            .stdout(predicate::str::contains(if no_mounts {
                "/dev/shm not writable (compare without a mount layer)"
            } else {
                "a private /dev/shm and IPC per trial process"
            }));
        assert!(!std::path::Path::new(&format!("/dev/shm/{name}")).exists());
    }
}

#[test]
fn review5_d1_a_fixture_glob_dir_star_star_matches_every_file_beneath_dir() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: agent\n    run: 'true'\n    fixtures: [\"graders/**\"]\n",
    );
    std::fs::create_dir_all(f.path("graders/lib")).unwrap();
    std::fs::write(f.path("graders/lib/helper.py"), "").unwrap();
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(0);
    // An empty folder still matches no file.
    std::fs::remove_file(f.path("graders/lib/helper.py")).unwrap();
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("`graders/**` matches no file"));
}

#[test]
fn review5_v3_a_stage_after_a_stage_1_that_ran_another_agent_script_is_refused() {
    let f = Fixture::new(
        "version: 1\nsampling: {sequential: {healthy: 0.9, regressed: 0.7, stage: 4}}\ntasks:\n  - id: agent\n    run: ./agent.sh\n",
    );
    let agent = |body: &str| {
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::write(f.path("agent.sh"), body).unwrap();
        std::fs::set_permissions(f.path("agent.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    };
    let stage = |args: &[&str]| {
        let mut cmd = gate();
        cmd.current_dir(f.dir.path())
            .args(["run", "plan.yaml", "--no-step-summary"])
            .args(args)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_RUN_ID")
            .env_remove("GITHUB_STEP_SUMMARY");
        cmd.assert()
    };
    agent("#!/bin/sh\nexit 0\n");
    stage(&["--stage", "1", "--ledger", "s1/ledger.jsonl"]).code(5);
    // The same plan, and the agent script rewritten between the stages.
    agent("#!/bin/sh\ntrue\n");
    stage(&[
        "--stage",
        "2",
        "--after",
        "s1/ledger.jsonl",
        "--ledger",
        "s2/ledger.jsonl",
    ])
    .code(2)
    .stderr(predicate::str::contains(
        "the earlier stage ran other programs than this checkout names: `agent.sh` changed since",
    ));
    assert!(!f.path("s2/ledger.jsonl").exists());
    // The script as it was: stage 2 runs.
    agent("#!/bin/sh\nexit 0\n");
    stage(&[
        "--stage",
        "2",
        "--after",
        "s1/ledger.jsonl",
        "--ledger",
        "s2/ledger.jsonl",
    ])
    .stderr(predicate::str::contains("other programs").not());
}

#[test]
fn review5_x2_a_symlink_at_a_suites_results_path_is_not_followed() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: s\n    suite:\n      run: sh suite.sh\n      results: report.xml\n      assume_retries_off: true\n",
    );
    std::fs::write(
        f.path("golden.xml"),
        "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:00:00\"><testcase classname=\"c\" name=\"t\" time=\"0.1\"/></testsuite></testsuites>\n",
    )
    .unwrap();
    std::fs::write(
        f.path("suite.sh"),
        "rm -f report.xml; ln -s golden.xml report.xml\n",
    )
    .unwrap();
    f.command(&[])
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(4)
        .stdout(predicate::str::contains(
            "is a symbolic link, which gate does not follow",
        ));
}
