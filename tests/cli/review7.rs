//! The grader breaks of review 7 (issue 29): ways for the task under test to make the plan's
//! `check:` grader pass a wrong answer — program text fed to an interpreter on stdin or
//! inline (c07), a search path of the plan's `env:` that a trial fills (c29, c34), and
//! Python's current folder first on `sys.path` (c40). Each test is named after the attack
//! it pins; each attack's agent answers wrong, so PASS is the break.

use predicates::prelude::*;

use crate::common::*;

/// The c07 agent: a wrong answer, then `FILE` rewritten to a grader that passes.
fn rewriting_agent(f: &Fixture, file: &str, passing: &str) {
    std::fs::write(
        f.path("agent.sh"),
        format!("echo wrong > result.txt\nprintf '{passing}\\n' > {file} 2>/dev/null\nexit 0\n"),
    )
    .unwrap();
}

/// Each `check:` form in `forms` feeds `graders/grade` (holding `grader`) to an interpreter;
/// an agent that rewrites it to `rewrite` still FAILs, in every box mode, and the grader is
/// unchanged.
fn grader_fed_as_text_holds(test: &str, grader: &str, rewrite: &str, forms: &[&str]) {
    for mounts in box_modes(test) {
        for form in forms {
            let f = Fixture::new(&plan("", form));
            std::fs::create_dir(f.path("graders")).unwrap();
            std::fs::write(f.path("graders/grade"), grader).unwrap();
            rewriting_agent(&f, "graders/grade", rewrite);
            run_in(&f, !mounts)
                .code(1)
                .stdout(predicate::str::contains("agent  FAIL"));
            assert_eq!(read(&f.path("graders/grade")), grader, "{form}");
        }
    }
}

#[test]
fn review7_c07_grader_fed_to_the_shell_on_stdin_or_inline_is_protected() {
    grader_fed_as_text_holds(
        "review7_c07_grader_fed_to_the_shell_on_stdin_or_inline_is_protected",
        "grep -qx right result.txt\n",
        "exit 0",
        &[
            "sh < graders/grade",
            "cat graders/grade | sh",
            "sh -c \"$(cat graders/grade)\"",
            "eval \"$(cat graders/grade)\"",
            "bash /dev/stdin < graders/grade",
            "sh -s < graders/grade",
        ],
    );
}

#[test]
fn review7_c07_python_grader_fed_on_stdin_or_through_exec_is_protected() {
    grader_fed_as_text_holds(
        "review7_c07_python_grader_fed_on_stdin_or_through_exec_is_protected",
        "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
        "import sys; sys.exit(0)",
        &[
            "python3 -I < graders/grade",
            "python3 -I - < graders/grade",
            "python3 -I -c \"exec(open('graders/grade').read())\"",
            "python3 /dev/stdin < graders/grade",
        ],
    );
}

#[test]
fn review7_c07_grader_fed_on_stdin_from_the_tasks_own_folder_is_refused() {
    let f = Fixture::new(&plan("", "sh < grade"));
    std::fs::write(f.path("grade"), "grep -qx right result.txt\n").unwrap();
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("the `check:` grader `"))
        .stderr(predicate::str::contains("move it into a subfolder"));
}

/// The c29 / c34 layout: a Python grader in `graders/` (its folder read-only), `tools/`
/// with an unrelated program, `src/` with the agent's code.
fn search_path_fixture(extra: &str) -> Fixture {
    use std::os::unix::fs::PermissionsExt as _;
    let f = Fixture::new(&plan(extra, "python3 graders/check.py"));
    for d in ["graders", "tools", "src"] {
        std::fs::create_dir(f.path(d)).unwrap();
    }
    std::fs::write(
        f.path("graders/check.py"),
        "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
    )
    .unwrap();
    std::fs::write(f.path("tools/fmt"), "#!/bin/sh\necho tool\n").unwrap();
    std::fs::set_permissions(f.path("tools/fmt"), std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        f.path("agent.sh"),
        "echo wrong > result.txt\nprintf '#!/bin/sh\\nexit 0\\n' > tools/python3 && chmod +x tools/python3\nprintf 'import os, atexit\\natexit.register(lambda: os._exit(0))\\n' > src/sitecustomize.py\n",
    )
    .unwrap();
    f
}

fn abs(f: &Fixture, rel: &str) -> String {
    std::fs::canonicalize(f.dir.path())
        .unwrap()
        .join(rel)
        .display()
        .to_string()
}

#[test]
fn review7_c29_a_path_entry_the_trials_can_fill_is_refused() {
    let f = search_path_fixture("    env: {PATH: \"tools:/usr/local/bin:/usr/bin:/bin\"}\n");
    f.run(&[]).code(2).stderr(predicate::str::contains(
        "`env: PATH` entry `tools` is relative",
    ));
    assert!(!f.path("tools/python3").exists(), "no trial ran");
    // Absolute, but in the task's folder: the same.
    let f = search_path_fixture("");
    let plan_text = plan(
        &format!(
            "    env: {{PATH: \"{}:/usr/bin:/bin\"}}\n",
            abs(&f, "tools")
        ),
        "python3 graders/check.py",
    );
    std::fs::write(f.plan(), plan_text).unwrap();
    f.run(&[]).code(2).stderr(predicate::str::contains(
        "lies in a folder the trials write",
    ));
    // An empty entry is the current folder.
    let f = search_path_fixture("    env: {PATH: \"/usr/bin:/bin:\"}\n");
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("`env: PATH` entry `` is relative"));
}

/// Not a regression test (it holds before the fix too): the fix of c29 still lets a `PATH`
/// entry name a graders' folder, which is read-only whole, so nothing can be planted there.
#[test]
fn a_path_entry_into_a_graders_folder_is_allowed_and_read_only() {
    use std::os::unix::fs::PermissionsExt as _;
    let test = "a_path_entry_into_a_graders_folder_is_allowed_and_read_only";
    for mounts in box_modes(test) {
        let f = Fixture::new("");
        let plan_text = plan(
            &format!("    env: {{PATH: \"{}:/usr/bin:/bin\"}}\n", abs(&f, "bin")),
            "grade",
        );
        std::fs::write(f.plan(), plan_text).unwrap();
        std::fs::create_dir(f.path("bin")).unwrap();
        std::fs::write(
            f.path("bin/grade"),
            "#!/bin/sh\ngrep -qx right result.txt\n",
        )
        .unwrap();
        std::fs::set_permissions(f.path("bin/grade"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::fs::write(
            f.path("agent.sh"),
            "echo wrong > result.txt\nprintf '#!/bin/sh\\nexit 0\\n' > bin/grep 2>/dev/null; chmod +x bin/grep 2>/dev/null; exit 0\n",
        )
        .unwrap();
        run_in(&f, !mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(!f.path("bin/grep").exists());
    }
}

#[test]
fn review7_c34_a_module_search_path_the_trials_can_fill_is_refused() {
    let f = search_path_fixture("    env: {PYTHONPATH: src}\n");
    f.run(&[]).code(2).stderr(predicate::str::contains(
        "`env: PYTHONPATH` entry `src` is relative",
    ));
    assert!(!f.path("src/sitecustomize.py").exists(), "no trial ran");
    // The class: every loader's search path, options that load a file, absolute or not.
    let f = search_path_fixture("");
    for env in [
        format!("{{PYTHONPATH: \"{}\"}}", abs(&f, "src")),
        "{NODE_PATH: node_modules}".to_string(),
        "{NODE_OPTIONS: \"--require ./hook.js\"}".to_string(),
        format!("{{LD_PRELOAD: \"{}\"}}", abs(&f, "src/x.so")),
        "{PERL5LIB: lib}".to_string(),
        "{RUBYLIB: lib}".to_string(),
        format!("{{BASH_ENV: \"{}\"}}", abs(&f, "env.sh")),
        "{HOME: .}".to_string(),
    ] {
        let plan_text = plan(&format!("    env: {env}\n"), "python3 graders/check.py");
        std::fs::write(f.plan(), plan_text).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "and the `check:` grader inherits it",
        ));
    }
    // A system folder is not the trials'.
    let plan_text = plan(
        "    env: {PYTHONPATH: /usr/lib/python3/dist-packages, PATH: \"/usr/bin:/bin\"}\n",
        "python3 graders/check.py",
    );
    std::fs::write(f.plan(), plan_text).unwrap();
    check(&f).code(0);
}

#[test]
fn review7_c40_python_dash_m_in_a_folder_the_trials_write_is_refused() {
    let f = Fixture::new("");
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(
        f.path("graders/test_result.py"),
        "def test_result():\n    assert open('result.txt').read().strip() == 'right'\n",
    )
    .unwrap();
    std::fs::write(
        f.path("agent.sh"),
        "echo wrong > result.txt\nprintf 'import sys\\nsys.exit(0)\\n' > pytest.py\nprintf 'import sys\\nsys.exit(0)\\n' > unittest.py\n",
    )
    .unwrap();
    for (form, module) in [
        (
            "python3 -m pytest -q -p no:cacheprovider graders/test_result.py",
            "pytest",
        ),
        ("python3 -m unittest graders/test_result.py", "unittest"),
        ("python3 -c 'import json'", "json"),
    ] {
        std::fs::write(f.plan(), plan("", form)).unwrap();
        f.run(&[])
            .code(2)
            .stderr(predicate::str::contains(format!(
                "a trial could create `{module}.py` there"
            )))
            .stderr(predicate::str::contains("-P …"));
        assert!(!f.path("pytest.py").exists(), "no trial ran: {form}");
    }
    // The forms that leave the current folder out of `sys.path` are accepted (pytest's with
    // the folders the trials write listed: it reads a `pytest.ini` there too).
    std::fs::create_dir(f.path("out")).unwrap();
    for (extra, form) in [
        ("", "python3 -I -m unittest graders/test_result.py"),
        (
            "    writes: [out]\n",
            "python3 -P -m pytest graders/test_result.py",
        ),
        (
            "    writes: [out]\n    env: {PYTHONSAFEPATH: \"1\"}\n",
            "python3 -m pytest graders/",
        ),
        ("", "cd graders && python3 -m unittest test_result.py"),
    ] {
        std::fs::write(f.plan(), plan(extra, form)).unwrap();
        check(&f).code(0);
    }
}

/// Not a regression test (it holds before the fix too): the form c40's refusal asks for,
/// `python3 -P -m pytest`, does not run a `pytest.py` a trial created.
#[test]
fn the_python_dash_p_form_c40_asks_for_fails_the_wrong_answer() {
    let test = "the_python_dash_p_form_c40_asks_for_fails_the_wrong_answer";
    let pytest = std::process::Command::new("python3")
        .args(["-m", "pytest", "--version"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !pytest {
        skip_or_fail(test, "pytest", "python3 has no pytest");
        return;
    }
    for mounts in box_modes(test) {
        // With `writes:` (pytest reads a `pytest.ini` from the task's folder: refused without
        // it); the trial tries `pytest.py` in its own folder and in the task's.
        let f = Fixture::new(&plan(
            "    writes: [out]\n",
            "python3 -P -m pytest -q -p no:cacheprovider graders/test_result.py",
        ));
        std::fs::create_dir(f.path("graders")).unwrap();
        std::fs::create_dir(f.path("out")).unwrap();
        std::fs::write(
            f.path("graders/test_result.py"),
            "def test_result():\n    assert open('out/result.txt').read().strip() == 'right'\n",
        )
        .unwrap();
        std::fs::write(
            f.path("agent.sh"),
            "echo wrong > out/result.txt\nprintf 'import sys\\nsys.exit(0)\\n' > out/pytest.py\nprintf 'import sys\\nsys.exit(0)\\n' > pytest.py\n",
        )
        .unwrap();
        run_in(&f, !mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
    }
}

#[test]
fn review7_c38_c39_a_check_through_a_task_runner_the_trials_can_redefine_is_warned_about() {
    let f = Fixture::new("");
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(
        f.path("graders/check.py"),
        "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
    )
    .unwrap();
    std::fs::write(
        f.path("Makefile"),
        ".PHONY: check\ncheck:\n\tpython3 graders/check.py\n",
    )
    .unwrap();
    // node's runners: a warning (a run-time wall compares what they read, by reading text).
    std::fs::write(f.plan(), plan("", "npm test --silent")).unwrap();
    check(&f).code(0).stderr(predicate::str::contains(
        "warning: task `agent`: `check:` runs `npm` in `",
    ));
    // The others: no wall compares the `Makefile` or a `pytest.ini`, so since round 4,
    // session 22, the plan is refused, naming `writes:`; with the folders the trials write
    // listed, the rest (the `Makefile` too) is read-only to them and the line is accepted.
    std::fs::create_dir(f.path("out")).unwrap();
    for (form, runner) in [
        ("make -sB check", "make"),
        ("python3 -I -m pytest -q graders/check.py", "pytest"),
    ] {
        std::fs::write(f.plan(), plan("", form)).unwrap();
        assert_definition_refused(&f, &format!("runs `{runner}` in `"));
        std::fs::write(f.plan(), plan("    writes: [out]\n", form)).unwrap();
        check(&f).code(0);
    }
    // A grader named on the line itself: no warning.
    std::fs::write(f.plan(), plan("", "python3 -I graders/check.py")).unwrap();
    check(&f)
        .code(0)
        .stderr(predicate::str::contains("warning").not());
}

/// Review 8, a01/a17/a24: the search paths of c29/c34 set on the `check:` line itself
/// (`PYTHONPATH=src python3 …`, `export …`, `env …`) were not checked: a trial's
/// `src/sitecustomize.py` made every wrong answer pass. They are refused like `env:`; a
/// graders' folder or a system folder stays allowed.
#[test]
fn review8_a01_a_search_path_set_on_the_check_line_is_refused() {
    let f = search_path_fixture("");
    for line in [
        "PYTHONPATH=src python3 graders/check.py",
        "export PYTHONPATH=src; python3 graders/check.py",
        "env -u X PYTHONPATH=src python3 graders/check.py",
        "env -i PATH=/usr/bin:/bin PYTHONPATH=src python3 graders/check.py",
    ] {
        std::fs::write(f.plan(), plan("", line)).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "the `check:` line sets `PYTHONPATH`",
        ));
    }
    for line in [
        "PYTHONPATH=graders python3 graders/check.py",
        "PYTHONPATH=/usr/lib/python3/dist-packages python3 graders/check.py",
    ] {
        std::fs::write(f.plan(), plan("", line)).unwrap();
        check(&f).code(0);
    }
}

/// Review 9, a05/a20: `env`'s options hid the assignment from the check-line refusal: a
/// glued `-S` (`env -S"PYTHONPATH=src python3 …"`, `-vS…`, `-iS…`) split into
/// `-SPYTHONPATH` as a name, and `env --chdir=src` moved the process into the agent's
/// folder, where a relative `graders` entry was the agent's `src/graders`. Each is refused.
#[test]
fn review9_a05_env_options_do_not_hide_a_search_path() {
    let f = search_path_fixture("");
    let abs_check = abs(&f, "graders/check.py");
    for line in [
        "env -S\"PYTHONPATH=src python3 graders/check.py\"".to_string(),
        "/usr/bin/env -vS'PYTHONPATH=src python3 graders/check.py'".to_string(),
        "env -iS\"PYTHONPATH=src /usr/bin/python3 graders/check.py\"".to_string(),
        "env --split-string='PYTHONPATH=src python3 graders/check.py'".to_string(),
        format!("env --chdir=src PYTHONPATH=graders python3 {abs_check}"),
        format!("env -Csrc PYTHONPATH=graders python3 {abs_check}"),
        "make -C graders PYTHONPATH=src check".to_string(),
        "sh -c 'PYTHONPATH=src python3 graders/check.py'".to_string(),
    ] {
        std::fs::write(f.plan(), plan("", &line)).unwrap();
        // Refused by the search-path check, or before it by the check-line allow-list
        // (`env -S` / `-C` are not followed at all; review 13: `make -C graders` runs
        // `graders`' makefile, which a trial could create there).
        check(&f).code(2).stderr(
            predicate::str::contains("the `check:` line sets `PYTHONPATH`")
                .or(predicate::str::contains("`env -"))
                .or(predicate::str::contains("`make -C graders`")),
        );
    }
}

/// Review 9, a09/a20: load-path variables the list missed (`CDPATH` sends `cd graders` to
/// the agent's `src/graders`; `TCL_LIBRARY`, `JDK_JAVA_OPTIONS`, `OPENSSL_CONF` load a
/// file the agent wrote), in the plan's `env:` and on the check line alike.
#[test]
fn review9_a09_more_load_path_variables_are_refused() {
    let f = search_path_fixture("");
    for (name, value) in [
        ("CDPATH", "src"),
        ("TCL_LIBRARY", "src"),
        ("JDK_JAVA_OPTIONS", "-javaagent:src/agent.jar"),
        ("OPENSSL_CONF", "src/ossl.cnf"),
        ("GOFLAGS", "-toolexec=src/x"),
        ("LUA_INIT", "@src/init.lua"),
    ] {
        std::fs::write(
            f.plan(),
            plan(
                &format!("    env: {{{name}: \"{value}\"}}\n"),
                "cd graders && python3 check.py",
            ),
        )
        .unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains(format!("`env: {name}` entry")));
        std::fs::write(
            f.plan(),
            plan("", &format!("{name}={value} python3 graders/check.py")),
        )
        .unwrap();
        check(&f).code(2).stderr(predicate::str::contains(format!(
            "the `check:` line sets `{name}`"
        )));
    }
}

/// Review 9, a05/a26 (over-refusal): extending the inherited value (`PATH=/usr/local/bin:$PATH`),
/// `$HOME` and `~` (gate's own environment, not the plan's), and `NAME=value` words that are
/// a command's operands (`grep -qx PYTHONPATH=src f`) were refused, with a false reason.
#[test]
fn review9_a26_harmless_check_line_assignments_are_accepted() {
    let f = search_path_fixture("");
    for line in [
        "PATH=/usr/local/bin:$PATH python3 graders/check.py",
        "PATH=\"$PATH:/opt/tools\" python3 graders/check.py",
        "PYTHONPATH=graders:$PYTHONPATH python3 graders/check.py",
        "HOME=$HOME python3 graders/check.py",
        "XDG_CONFIG_HOME=$HOME/.config python3 graders/check.py",
        "GIT_CONFIG_GLOBAL=~/.gitconfig python3 graders/check.py",
        "LD_LIBRARY_PATH=/opt/lib:$LD_LIBRARY_PATH python3 graders/check.py",
        "grep -qx PYTHONPATH=src result.txt || python3 graders/check.py",
        "python3 graders/check.py HOME=.",
    ] {
        std::fs::write(f.plan(), plan("", line)).unwrap();
        check(&f).code(0);
    }
    // What the shell expands to the check's own folder stays refused.
    for line in [
        "PYTHONPATH=$PWD/src python3 graders/check.py",
        "PYTHONPATH=$(pwd)/src python3 graders/check.py",
        "HOME=. python3 graders/check.py",
    ] {
        std::fs::write(f.plan(), plan("", line)).unwrap();
        check(&f).code(2);
    }
}
