//! The grader breaks of review 8 (issue 29): `check:` lines whose grader the shell or an
//! interpreter resolves only when they run (a variable the line assigns, `set --`, a loop,
//! a glob, `env -C`, inline code building a path), refused at load; and interpreters or
//! tools living in the task's folder (a venv, `node_modules`), whose environment is gate's
//! state. Each test is named after the attack it pins; each agent answers wrong, so PASS
//! is the break.

use predicates::prelude::*;

use crate::common::*;

/// A task folder with graders a check line may name: `graders/grade` (sh), `graders/g1.sh`,
/// `graders/check.py`, `graders/check.js`; the agent answers wrong.
fn graders_fixture(check: &str) -> Fixture {
    let f = Fixture::new(&plan("", check));
    std::fs::create_dir(f.path("graders")).unwrap();
    std::fs::write(f.path("graders/grade"), "grep -qx right result.txt\n").unwrap();
    std::fs::write(f.path("graders/g1.sh"), "grep -qx right result.txt\n").unwrap();
    std::fs::write(
        f.path("graders/check.py"),
        "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
    )
    .unwrap();
    std::fs::write(
        f.path("graders/check.js"),
        "process.exit(require('fs').readFileSync('result.txt','utf8').trim()=='right'?0:1)\n",
    )
    .unwrap();
    std::fs::write(f.path("agent.sh"), "echo wrong > result.txt\n").unwrap();
    f
}

/// Each of `lines` is refused by `gate check` (exit 2) in one line naming `construct` and
/// the fix.
fn refused(lines: &[(&str, &str)]) {
    for (line, construct) in lines {
        let f = graders_fixture(line);
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("which gate cannot follow"))
            .stderr(predicate::str::contains(*construct))
            .stderr(predicate::str::contains("`check: sh graders/check.sh`"));
    }
}

/// Each of `lines` is accepted by `gate check`.
fn accepted(lines: &[&str]) {
    for line in lines {
        let f = graders_fixture(line);
        check(&f).code(0);
    }
}

#[test]
fn review8_a01_a_shell_variable_naming_the_grader_is_refused() {
    refused(&[
        ("G=graders/grade; sh $G", "`$G`"),
        ("G=graders/grade; sh \"${G}\"", "`$G`"),
        ("P=src; PYTHONPATH=$P python3 graders/check.py", "`$P`"),
    ]);
    // A value the plan's `env:` gives is followed.
    let f = graders_fixture("sh $G");
    std::fs::write(
        f.plan(),
        plan("    env: {G: graders/grade}\n", "sh $G && sh \"${G}\""),
    )
    .unwrap();
    check(&f).code(0);
}

#[test]
fn review8_a17_positional_parameters_loops_and_functions_are_refused() {
    refused(&[
        (
            "set -- graders/grade; sh graders/grade",
            "`set` with operands",
        ),
        ("sh \"$1\"", "`$1`"),
        ("for f in graders/grade; do sh $f; done", "`for`"),
        ("while true; do sh graders/grade; break; done", "`while`"),
        ("if true; then sh graders/grade; fi", "`if`"),
        ("f() { sh graders/grade; }; f", "function"),
        ("sh $(echo graders/grade)", "`$(echo graders/grade)`"),
        ("eval 'sh graders/grade'", "`eval`"),
    ]);
    accepted(&["set -eu; sh graders/grade && sh graders/g1.sh"]);
}

#[test]
fn review8_a18_a_glob_naming_graders_is_refused_and_one_naming_data_is_not() {
    refused(&[
        ("sh graders/*.sh", "the pattern `graders/*.sh`"),
        ("sh graders/g?.sh", "the pattern `graders/g?.sh`"),
        ("sh graders/g[1].sh", "the pattern `graders/g[1].sh`"),
        (
            "for t in graders/*.sh; do sh \"$t\" || exit 1; done",
            "`for`",
        ),
        ("cat graders/*.sh | sh", "the pattern `graders/*.sh`"),
        (
            "sh graders/grade && grep -q right graders/*.sh",
            "matches the script",
        ),
    ]);
    let f = graders_fixture("sh graders/grade && grep -q right out/*.log");
    std::fs::create_dir(f.path("out")).unwrap();
    std::fs::write(f.path("out/a.log"), "right\n").unwrap();
    check(&f).code(0);
    accepted(&["sh graders/grade && cmp -s result.txt result.txt"]);
}

#[test]
fn review8_a23_env_dash_c_and_a_folder_in_a_variable_are_refused() {
    refused(&[
        ("env -C graders sh grade", "`env -C`"),
        ("env --chdir=graders sh grade", "`env -C`"),
        ("D=graders; cd $D && sh grade", "`$D`"),
    ]);
    accepted(&["cd graders && sh grade", "(cd graders && sh grade)"]);
}

#[test]
fn review8_a02_inline_code_that_builds_a_path_at_run_time_is_refused() {
    refused(&[
        (
            "node -e \"require(process.cwd()+'/graders/check.js')\"",
            "calls `require`",
        ),
        (
            "python3 -I -c \"exec(open('graders/'+'check.py').read())\"",
            "calls `exec`",
        ),
        (
            "python3 -I -c 'import runpy; runpy.run_path(p)'",
            "`runpy.run_path`",
        ),
        (
            "python3 -I -c 'import subprocess as s; s.run(g)'",
            "`subprocess`",
        ),
    ]);
    accepted(&[
        "node -e \"require('./graders/check.js')\"",
        "python3 -I -c \"exec(open('graders/check.py').read())\"",
        "python3 -I -c 'import sys; sys.exit(0 if open(\"result.txt\").read().strip() == \"right\" else 1)'",
    ]);
}

/// `python3 -m venv --without-pip [--copies] .venv` in `f`; its `site-packages` folder.
fn venv(f: &Fixture, copies: bool) -> std::path::PathBuf {
    let mut cmd = std::process::Command::new("python3");
    cmd.current_dir(f.dir.path())
        .args(["-m", "venv", "--without-pip"]);
    if copies {
        cmd.arg("--copies");
    }
    assert!(cmd.arg(".venv").status().unwrap().success());
    let lib = std::fs::read_dir(f.path(".venv/lib"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    lib.join("site-packages")
}

/// The a02 agent: a wrong answer, then a `.pth` in the venv's `site-packages` that ends
/// every Python process with exit 0.
const PTH_AGENT: &str = "echo wrong > result.txt\nfor v in .venv/lib/python3*/site-packages; do printf 'import os; os._exit(0)\\n' > $v/zz.pth 2>/dev/null; done\nexit 0\n";

#[test]
fn review8_a02_a_copied_venv_in_the_task_folder_is_gate_state() {
    let test = "review8_a02_a_copied_venv_in_the_task_folder_is_gate_state";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    for no_mounts in box_modes(test) {
        let f = graders_fixture(".venv/bin/python graders/check.py");
        let site = venv(&f, true);
        std::fs::write(f.path("agent.sh"), PTH_AGENT).unwrap();
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(!site.join("zz.pth").exists());
    }
}

#[test]
fn review8_a27_a_symlinked_venv_and_node_modules_bin_are_accepted_and_protected() {
    let test = "review8_a27_a_symlinked_venv_and_node_modules_bin_are_accepted_and_protected";
    if !has("python3") || !has("node") {
        skip_or_fail(test, "python3", "no python3 or node here");
        skip_or_fail(test, "node", "no python3 or node here");
        return;
    }
    for no_mounts in box_modes(test) {
        let f = graders_fixture(".venv/bin/python graders/check.py");
        let site = venv(&f, false);
        assert!(
            std::fs::symlink_metadata(f.path(".venv/bin/python"))
                .unwrap()
                .file_type()
                .is_symlink()
        );
        std::fs::write(f.path("agent.sh"), PTH_AGENT).unwrap();
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(!site.join("zz.pth").exists());

        let f = graders_fixture("node_modules/.bin/jest");
        node_jest(&f);
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(read(&f.path("node_modules/jest/bin/jest.js")).contains("right"));
    }
}

/// A fake `jest` installed as npm does (`node_modules/jest/bin/jest.js`, linked from
/// `node_modules/.bin/jest`) that passes a right answer; the agent answers wrong and
/// rewrites it to pass.
fn node_jest(f: &Fixture) {
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::create_dir_all(f.path("node_modules/jest/bin")).unwrap();
    std::fs::create_dir_all(f.path("node_modules/.bin")).unwrap();
    let jest = f.path("node_modules/jest/bin/jest.js");
    std::fs::write(
        &jest,
        "#!/usr/bin/env node\nprocess.exit(require('fs').readFileSync('result.txt','utf8').trim()=='right'?0:1)\n",
    )
    .unwrap();
    std::fs::set_permissions(&jest, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        f.path("node_modules/jest/package.json"),
        "{\"name\":\"jest\",\"version\":\"29.0.0\",\"bin\":{\"jest\":\"bin/jest.js\"}}\n",
    )
    .unwrap();
    std::fs::write(
        f.path("package.json"),
        "{\"name\":\"p\",\"version\":\"1.0.0\",\"devDependencies\":{\"jest\":\"29.0.0\"}}\n",
    )
    .unwrap();
    std::os::unix::fs::symlink("../jest/bin/jest.js", f.path("node_modules/.bin/jest")).unwrap();
    std::fs::write(
        f.path("agent.sh"),
        "echo wrong > result.txt\nprintf '#!/usr/bin/env node\\nprocess.exit(0)\\n' > node_modules/jest/bin/jest.js 2>/dev/null\nexit 0\n",
    )
    .unwrap();
}

#[test]
fn review8_a28_npx_jest_and_a_venv_pytest_are_gate_state() {
    let test = "review8_a28_npx_jest_and_a_venv_pytest_are_gate_state";
    if !has("python3") || !has("npx") {
        skip_or_fail(test, "python3", "no python3 or npx here");
        skip_or_fail(test, "node", "no python3 or npx here");
        return;
    }
    for no_mounts in box_modes(test) {
        let f = graders_fixture("npx --offline jest");
        node_jest(&f);
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(read(&f.path("node_modules/jest/bin/jest.js")).contains("right"));

        // A program of the venv's not named as a runner: `.venv/bin/pytest` reads a
        // `pytest.ini` from the folder the trials write, refused since round 4 (below).
        let f = graders_fixture(".venv/bin/grade -q tests");
        let site = venv(&f, true);
        let pytest = f.path(".venv/bin/grade");
        std::fs::write(
            &pytest,
            format!(
                "#!{}\nimport sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
                f.path(".venv/bin/python").display()
            ),
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt as _;
        std::fs::set_permissions(&pytest, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(f.path("agent.sh"), PTH_AGENT).unwrap();
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(!site.join("zz.pth").exists());
    }
    let f = graders_fixture(".venv/bin/pytest -q tests");
    venv(&f, true);
    std::fs::write(f.path(".venv/bin/pytest"), "#!/bin/sh\nexit 0\n").unwrap();
    use std::os::unix::fs::PermissionsExt as _;
    std::fs::set_permissions(
        f.path(".venv/bin/pytest"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    assert_definition_refused(&f, "runs `pytest` in `");
    // A launcher with no `node_modules` to run from: a trial could create one.
    let f = graders_fixture("npx --offline jest");
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("finds no `node_modules`"));
}

#[test]
fn review8_a12_an_empty_pythonpath_in_env_is_not_refused() {
    let f = graders_fixture("python3 graders/check.py");
    std::fs::write(
        f.plan(),
        plan("    env: {PYTHONPATH: \"\"}\n", "python3 graders/check.py"),
    )
    .unwrap();
    check(&f).code(0);
    std::fs::write(
        f.plan(),
        plan(
            "    env: {PYTHONPATH: \":/usr/lib\"}\n",
            "python3 graders/check.py",
        ),
    )
    .unwrap();
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("relative"));
}

#[test]
fn the_grammar_refusals_do_not_apply_with_the_box_off() {
    let f = graders_fixture("G=graders/grade; sh $G");
    let yaml = read(&f.plan()).replace("version: 1\n", "version: 1\npolicy: {sandbox: off}\n");
    std::fs::write(f.plan(), yaml).unwrap();
    check(&f).code(0);
}

/// Review 10: check lines the allow-list accepted while the protection read them otherwise,
/// so the grader went unprotected and an agent that rewrote it PASSed: a shell option with
/// a value (`sh -o errexit grade`, `bash -O extglob`), a line continuation, bash's `$"…"`,
/// node's script without its `.js`, perl's `-we` cluster. Each line now either protects the
/// grader (the wrong answer FAILs) or is refused at load; none PASSes.
#[test]
fn review10_a_grader_named_through_options_continuations_or_quoting_stays_protected() {
    let mut lines = vec![
        "sh -o errexit graders/grade",
        "bash -O extglob graders/grade",
        "sh \\\n graders/grade",
        "sh \"graders/\\\ngrade\"",
        "sh $\"graders/grade\"",
    ];
    if has("node") {
        lines.push("node graders/check");
    }
    for line in lines {
        let f = graders_fixture(line);
        std::fs::write(
            f.path("agent.sh"),
            "echo wrong > result.txt\n\
             printf 'exit 0\\n' > graders/grade 2>/dev/null\n\
             printf 'process.exit(0)\\n' > graders/check.js 2>/dev/null\n\
             exit 0\n",
        )
        .unwrap();
        let out = f.command(&[]).output().unwrap();
        let code = out.status.code();
        assert!(
            matches!(code, Some(1 | 2)),
            "`{line}`: exit {code:?}, wanted FAIL (1) or a refusal (2)\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Review 10: inline code glued to its option, or in a cluster, was never read as code
/// (`node --eval=…`, `python3 -I "-c…"`, `perl -we …` with a computed path), and a
/// descriptor or a plan value the shell globs could name the grader. Refused at load.
#[test]
fn review10_glued_inline_code_descriptors_and_globbing_values_are_refused() {
    for line in [
        "node --eval=\"require(process.cwd()+'/graders/check.js')\"",
        "python3 -I \"-cexec(open('graders/'+'check.py').read())\"",
        "exec 3<graders/grade; sh /dev/fd/3",
        "node -e \"require('child_process')['exec'+'Sync']('sh graders/grade')\"",
        "node -e \"new (require('worker_threads').Worker)(process.cwd()+'/graders/check.js')\"",
        "perl -e 'open(my $f, \"-|\", \"sh\", \"gr\".\"aders/grade\")'",
        "perl -e 'print readpipe(\"sh gr\".\"aders/grade\")'",
    ] {
        let f = graders_fixture(line);
        check(&f).code(2);
    }
    let f = graders_fixture("sh $G");
    std::fs::write(f.plan(), plan("    env: {G: \"graders/gr?de\"}\n", "sh $G")).unwrap();
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("splits or matches as a pattern"));
}

/// Review 10: `HOME=$TMPDIR` / `PYTHONPATH=$TMPDIR` on the check line: gate read `$TMPDIR`
/// from its own environment, but the trial and its check share the trial's `TMPDIR`, where
/// the agent planted a `.pth` / `sitecustomize.py`. Refused like any folder the trials write.
#[test]
fn review10_a_search_path_in_the_trials_tmpdir_is_refused() {
    for line in [
        "HOME=$TMPDIR python3 graders/check.py",
        "PYTHONPATH=$TMPDIR python3 graders/check.py",
        "PYTHONPATH=${TMPDIR}/lib python3 graders/check.py",
        "PYENV_HOOK_PATH=hooks python3 graders/check.py",
    ] {
        let f = graders_fixture(line);
        check(&f).code(2);
    }
}

/// Review 10: every descriptor gate inherited reached the trials (`7<secret.txt` given to
/// gate was readable by the agent). gate marks them close-on-exec at start: a trial has 0, 1
/// and 2 only.
#[test]
fn review10_descriptors_gate_inherits_do_not_reach_the_trials() {
    let f = graders_fixture("sh graders/grade");
    std::fs::write(f.path("secret.txt"), "s3cret\n").unwrap();
    std::fs::write(
        f.path("agent.sh"),
        "if cat <&7 >/dev/null 2>&1; then echo leaked > result.txt; else echo right > result.txt; fi\n",
    )
    .unwrap();
    let gate_bin = assert_cmd::cargo::cargo_bin("gate");
    let out = std::process::Command::new("sh")
        .current_dir(f.dir.path())
        .args([
            "-c",
            &format!(
                "exec 7<secret.txt; exec '{}' run plan.yaml",
                gate_bin.display()
            ),
        ])
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "the agent read descriptor 7:\n{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

/// Review 10, a09/a01/a02/a21: honest check lines the allow-list refused although gate can
/// follow them: a command substitution that reads data (`[ $(wc -l < result.sh) -eq 1 ]`,
/// where the file `<` feeds `wc` is data, not a program, so it is no grader lying in the
/// task's folder), perl's `q()` / `qq()` string literals, `cmd & wait $!`. Accepted, and the
/// graders they name stay protected: the agent that rewrites them still FAILs.
#[test]
fn review10_a09_data_substitutions_perl_q_strings_and_wait_are_followed() {
    let mut lines = vec![
        "sh graders/grade && test -s result.txt && [ $(wc -l < result.sh) -eq 1 ]",
        "[ \"$(sh graders/grade && echo ok)\" = ok ]",
        "sh graders/grade & wait $!",
    ];
    if has("perl") {
        lines.push("perl -e \"require q(graders/check.pl)\"");
        lines.push("perl -e 'require qq{graders/check.pl}'");
    }
    for line in lines {
        let f = graders_fixture(line);
        std::fs::write(
            f.path("graders/check.pl"),
            "open(F, 'result.txt'); my $l = <F>; chomp $l; exit($l eq 'right' ? 0 : 1);\n",
        )
        .unwrap();
        std::fs::write(f.path("result.sh"), "a line\n").unwrap();
        check(&f).code(0);
        std::fs::write(
            f.path("agent.sh"),
            "echo wrong > result.txt\n\
             printf 'exit 0\\n' > graders/grade 2>/dev/null\n\
             printf 'exit 0;\\n' > graders/check.pl 2>/dev/null\n\
             exit 0\n",
        )
        .unwrap();
        let out = f.command(&[]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "`{line}`: wanted FAIL\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // What the same forms cannot follow stays refused.
    refused(&[
        ("perl -e 'require qq{graders/$x}'", "`require`"),
        ("sh $!", "`$!`"),
        ("[ $(G=graders/grade; sh $G) = ok ]", "command substitution"),
    ]);
}
