//! The `check:` line forms of review 14 (issue 29), groups 1, 2 and 5, that PASSed a wrong
//! answer: a tool ran a command named inside its own program text or options (awk, sed,
//! make, git, tar; c02, c03, c17, c18, c27, c28), loaded a module from a search path gate
//! does not model (jq, make, prove, perl; c11, c14, c20, c27), or python/node loaded a file
//! through a loader outside gate's tables (c04, c05, c21, c25, c31, c44). Each is now
//! refused when the plan is loaded (exit 2) with one line saying why; honest lines of the
//! same tools stay accepted.

use crate::common::*;

/// A task folder with a protected grader `graders/grade` (sh), `graders/mk` (a makefile),
/// `graders/check.js`, `graders/main.js` (which requires the bare package `okpkg`), and a
/// `Makefile`; the agent answers wrong.
fn fixture(check: &str, extra: &str) -> Fixture {
    let f = Fixture::new(&plan(extra, check));
    write_files(
        &f,
        &[
            ("graders/grade", "grep -qx right result.txt\n"),
            // The task's own repository (its `.git` is gate's state when a line runs git;
            // outside one, a trial could create it: review 19).
            (".git/HEAD", "ref: refs/heads/main\n"),
            (
                "graders/mk",
                ".PHONY: check\ncheck:\n\tgrep -qx right result.txt\n",
            ),
            ("graders/mk_inc", "include rules.mk\ncheck:\n\t@true\n"),
            (
                "graders/check.js",
                "process.exit(require('fs').readFileSync('result.txt','utf8').trim()=='right'?0:1)\n",
            ),
            (
                "graders/main.js",
                "process.exit(require('okpkg')() ? 0 : 1)\n",
            ),
            (
                "Makefile",
                ".PHONY: check\ncheck:\n\tgrep -qx right result.txt\n",
            ),
            ("t/basic.t", "print \"1..1\\nok 1\\n\";\n"),
            ("graders/test_ok.py", "import unittest\n"),
            ("agent.sh", "echo wrong > result.txt\n"),
        ],
    );
    f
}

/// Each of `lines` (with `env:` lines `extra`) is refused by `gate check` (exit 2), naming
/// `what`.
fn refused(lines: &[(&str, &str, &str)]) {
    for (extra, line, what) in lines {
        assert_refused_at_load(&fixture(line, extra), line, what);
    }
}

#[test]
fn c02_c03_c17_c18_c27_c28_a_command_inside_a_tools_program_text_is_refused() {
    refused(&[
        (
            "",
            "awk 'BEGIN{exit system(\"sh graders/grade\")}'",
            "`system`",
        ),
        (
            "",
            "mawk 'BEGIN{exit system(\"sh graders/grade\")}'",
            "`system`",
        ),
        (
            "",
            "awk 'BEGIN{\"sh graders/grade; echo $?\" | getline r; exit r}'",
            "awk's `|`",
        ),
        (
            "",
            "awk 'BEGIN{print \"\" | \"sh graders/grade\"; exit close(\"sh graders/grade\")}'",
            "awk's `|`",
        ),
        (
            "",
            "awk -v c='sh graders/grade' 'BEGIN{exit system(c)}'",
            "`system`",
        ),
        (
            "",
            "awk 'BEGIN{c=\"sh graders/grade\"; c | getline x; exit close(c)}'",
            "awk's `|`",
        ),
        (
            "",
            "echo x | sed -n 's/x/sh graders\\/grade/e'; true",
            "`e` flag",
        ),
        ("", "echo x | sed -n 's,x,sh graders/grade,e'", "`e` flag"),
        (
            "",
            "echo x | sed -n -e 's/x/sh graders\\/grade/e'",
            "`e` flag",
        ),
        (
            "",
            "echo x | sed -n --expression='s/x/sh graders\\/grade/ep'",
            "`e` flag",
        ),
        ("", "echo x | sed '1e sh graders/grade'", "`e` command"),
        (
            "",
            "make -f /dev/null --eval='c: ; @sh graders/grade' c",
            "`make --eval`",
        ),
        (
            "",
            "make -E 'c: ; @sh graders/grade' -f /dev/null c",
            "`make -E`",
        ),
        ("", "git -c alias.t='!sh graders/grade' t", "`git -c`"),
        (
            "",
            "tar -xf - --to-command='sh graders/grade' < a.tar",
            "--to-command",
        ),
        ("", "tar -I 'sh graders/grade' -xf a.tar", "`tar -I"),
        (
            "",
            "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.t GIT_CONFIG_VALUE_0='!sh graders/grade' git log",
            "GIT_CONFIG_COUNT",
        ),
        (
            "",
            "GIT_CONFIG_PARAMETERS=\"'alias.t=!sh graders/grade'\" git log",
            "GIT_CONFIG_PARAMETERS",
        ),
        (
            "    env: {GIT_CONFIG_COUNT: \"1\", GIT_CONFIG_KEY_0: alias.t, GIT_CONFIG_VALUE_0: \"!sh graders/grade\"}\n",
            "git log",
            "GIT_CONFIG_",
        ),
    ]);
}

#[test]
fn c11_c14_c20_c27_a_tools_module_search_path_is_refused() {
    refused(&[
        ("", "jq -e -L lib 'include \"chk\"; chk' cfg.json", "`jq -L"),
        (
            "",
            "jq -e -Llib 'import \"chk\" as c; c::chk' cfg.json",
            "`jq -Llib`",
        ),
        (
            "",
            "jq -e --library-path=lib 'true' cfg.json",
            "--library-path",
        ),
        (
            "",
            "jq -e 'include \"chk\" {search: \"./lib\"}; chk' cfg.json",
            "`include`",
        ),
        ("", "make -s -f graders/mk_inc check", "includes another"),
        ("", "make -s -I inc -f graders/mk check", "`make -I`"),
        (
            "",
            "make -s --include-dir=inc -f graders/mk check",
            "--include-dir",
        ),
        ("", "prove -l t/", "`prove -l`"),
        ("", "prove -Ilib t/basic.t", "`prove -Ilib`"),
        ("", "prove --lib t/", "`prove --lib`"),
        ("", "prove t/basic.t", "--norc"),
        ("", "PERL5OPT=-Ilib perl t/basic.t", "PERL5OPT"),
        ("    env: {PERL5OPT: -Ilib}\n", "perl t/basic.t", "PERL5OPT"),
        ("", "PERLDB_OPTS=NonStop=1 perl -d t/basic.t", "`perl -d`"),
        ("", "PERLDB_OPTS=NonStop=1 perl t/basic.t", "PERLDB_OPTS"),
        ("", "perl -d t/basic.t", "`perl -d`"),
        ("", "perl -d:Trace t/basic.t", "`perl -d`"),
    ]);
}

#[test]
fn c04_c05_c21_c25_c31_c44_a_python_or_node_loader_outside_the_tables_is_refused() {
    refused(&[
        ("", "python3 -I -m unittest discover", "-m unittest"),
        (
            "",
            "python3 -I -m unittest discover -s graders",
            "-m unittest",
        ),
        ("", "python3 -I -m unittest", "-m unittest"),
        ("", "python3 -I -m doctest lib/doc.txt", "-m doctest"),
        (
            "",
            "python3 -I -c 'import zipimport; zipimport.zipimporter(\"lib/c.zip\").load_module(\"c\")'",
            "`zipimport`",
        ),
        (
            "",
            "python3 -I -c 'import doctest,sys; sys.exit(doctest.testfile(\"lib/doc.txt\", module_relative=False).failed)'",
            "`doctest`",
        ),
        (
            "",
            "python3 -I -c 'import logging.config; logging.config.fileConfig(\"lib/log.ini\")'",
            "`fileConfig`",
        ),
        (
            "",
            "python3 -I -c 'import site; site.addpackage(\"lib\", \"x.pth\", set())'",
            "`addpackage`",
        ),
        (
            "",
            "python3 -I -c 'import pkgutil; pkgutil.get_importer(\"lib\")'",
            "`pkgutil`",
        ),
        (
            "",
            "node -e 'process.exit(require(\"okcheck\")()?0:1)'",
            "okcheck",
        ),
        ("", "node graders/main.js", "okpkg"),
        ("", "node -r okpre graders/check.js", "okpre"),
        ("", "node --require=okpre graders/check.js", "okpre"),
        ("", "node --import okpre graders/check.js", "okpre"),
        ("", "node --loader okpre graders/check.js", "okpre"),
    ]);
}

#[test]
fn review14_honest_tool_lines_stay_accepted() {
    for line in [
        "awk '{print $1}' result.txt | grep -qx right",
        "awk '$1 ~ /right|fine/ {n++} END {exit !n}' result.txt",
        "sed -n 1p result.txt | grep -qx right",
        "jq -e .port src/config.json",
        "git diff --quiet",
        "make -sB -f graders/mk check",
        "prove --norc t/",
        "python3 -I -m unittest graders/test_ok.py",
        "node graders/check.js",
        "node -r ./graders/check.js -e 0",
    ] {
        let f = fixture(line, "");
        let out = check(&f).get_output().clone();
        assert_eq!(
            out.status.code(),
            Some(0),
            "`{line}` refused:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // A bare preload the task's own `node_modules` holds was accepted here until review 35
    // (61a): node resolves it from the check's folder, where a trial's `package.json` naming
    // itself `okpre` is read first. Refused now, naming the preload; by its path, accepted.
    let f = fixture("node -r okpre graders/main.js", "");
    // Review 26, 01: the grader's own `package.json`, which node reads before any package.
    std::fs::write(f.path("graders/package.json"), "{}\n").unwrap();
    for pkg in ["okpre", "okpkg"] {
        std::fs::create_dir_all(f.path(&format!("node_modules/{pkg}"))).unwrap();
        std::fs::write(
            f.path(&format!("node_modules/{pkg}/index.js")),
            "module.exports = () => false;\n",
        )
        .unwrap();
    }
    check(&f)
        .code(2)
        .stderr(predicates::str::contains("the preload `okpre`"));
    std::fs::write(
        f.path("plan.yaml"),
        plan("", "node -r ./node_modules/okpre/index.js graders/main.js"),
    )
    .unwrap();
    check(&f).code(0);
    // A runner that reads its definition from the folder the trials write (the `Makefile`,
    // a `pytest.ini`): refused since round 4, session 22, naming `writes:`.
    for (line, runner) in [
        ("make -sB check", "make"),
        ("python3 -I -m pytest -q", "pytest"),
    ] {
        assert_definition_refused(&fixture(line, ""), &format!("runs `{runner}` in `"));
    }
}
