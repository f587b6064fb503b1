//! The `check:` line forms of review 17 (issue 29) that PASSed a wrong answer, by class:
//! escapes languages read differently (e01, e02, e14); long options by a unique prefix,
//! unknown options and option values (e03, e09, e15, e17); awk's `|` behind a string or a
//! continuation (e03, e17); perl's debugger in a cluster (e04, e17); a script missing at
//! load that inline code names anywhere or a line feeds an interpreter on stdin (e13, e16,
//! e21); `python -m pickle` and the modules that run a file (e06); `timeout`'s duration,
//! `script -c` and Tcl fed on stdin (e12); git's `-c` after a valued option (e19). Each is
//! refused when the plan is loaded (exit 2) with the reason; the honest lines of e10 that
//! were refused are accepted.

use crate::common::*;

/// A task folder with a protected grader `graders/grade` (sh), `graders/mk` (a makefile),
/// `graders/pgrade` (perl), `graders/t/basic.t`, `data.json`, `tests/Makefile`, and an
/// empty `lib/`: the `lib/new.*` files the lines name are missing at load. The agent
/// answers wrong.
fn fixture(check: &str, extra: &str) -> Fixture {
    let f = Fixture::new(&plan(extra, check));
    write_files(
        &f,
        &[
            ("graders/grade", "grep -qx right result.txt\n"),
            // The task's own repository (its `.git` is gate's state when a line runs git;
            // outside one, a trial could create it: review 19).
            (".git/HEAD", "ref: refs/heads/main\n"),
            ("graders/mk", ".PHONY: c\nc:\n\tgrep -qx right result.txt\n"),
            ("graders/pgrade", "exit 1;\n"),
            (
                "graders/t/basic.t",
                "use Test::More; ok(0); done_testing;\n",
            ),
            ("graders/expected.txt", "right\n"),
            (
                "tests/Makefile",
                ".PHONY: c\nc:\n\tgrep -qx right result.txt\n",
            ),
            ("data.json", "{\"include\": 1, \"import\": 1}\n"),
            ("data.txt", "a|right\n"),
            ("lib/.keep", ""),
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
fn rev17_e01_e02_e14_escapes_languages_read_differently_are_refused() {
    let why = "write the path without escapes";
    refused(&[
        (
            "",
            r#"node -e 'process.exit(require("child_process").spawnSync("sh",["graders/gr\ade"]).status)'"#,
            why,
        ),
        (
            "",
            r#"node -e 'process.exit(require("child_process").spawnSync("sh",["graders/gra\de"]).status)'"#,
            why,
        ),
        (
            "",
            r#"node -e 'process.exit(require("child_process").spawnSync("sh",["graders/grad\e"]).status)'"#,
            why,
        ),
        (
            "",
            r#"perl -e 'exit(system("sh", "graders/gra\de") >> 8)'"#,
            why,
        ),
        (
            "",
            r#"perl -e 'exit(system("sh", "gr\Eaders/grade") >> 8)'"#,
            why,
        ),
        (
            "",
            r#"perl -e 'exit(system("sh \lgraders/grade") >> 8)'"#,
            why,
        ),
        ("", r#"perl -e 'exit((do "li\Eb/c.pl") ? 0 : 1)'"#, why),
        (
            "",
            "node -e 'process.exit(require(\"child_process\").spawnSync(\"sh\",[\"graders/gr\\\nade\"]).status)'",
            why,
        ),
    ]);
}

#[test]
fn rev17_e03_e09_e15_e17_long_options_by_prefix_and_unknown_options_are_refused() {
    let full = "write the option in full";
    refused(&[
        (
            "",
            r"echo x | sed -n --expr='s/x/sh graders\/grade/e' && grep -qx right result.txt",
            "reads as `--expression`",
        ),
        ("", r"echo x | sed -n --e='s/x/sh graders\/grade/e'", full),
        ("", "echo x | sed -n --fi=lib/new.sed", "`--file`"),
        ("", "echo x | sed -n --fil lib/new.sed", full),
        (
            "",
            "make -f /dev/null --ev='c: ; @sh graders/grade' c",
            "reads as `--eval`",
        ),
        ("", "make --makef=graders/mk c", "reads as `--makefile`"),
        ("", "make --fil=graders/mk c", full),
        ("", "make --dir=tests c", "reads as `--directory`"),
        ("", "make --direc=tests c", full),
        (
            "",
            "tar -cf - result.txt | tar -xf - --to-c='sh graders/grade'",
            full,
        ),
        (
            "",
            "tar --use='sh graders/grade' -cf /dev/null result.txt",
            "reads as `--use-compress-program`",
        ),
        (
            "",
            "tar -cf /dev/null --checkpoint=1 --checkpoint-a='exec=sh graders/grade' result.txt",
            "reads as `--checkpoint-action`",
        ),
        (
            "",
            "prove --norc --li graders/t/basic.t",
            "reads as `--lib`",
        ),
        ("", "prove --norc --l graders/t/basic.t", full),
        ("", "prove --norc --bl --li graders/t/basic.t", full),
        (
            "",
            "prove --norc --exec 'perl -Ilib' graders/t/basic.t",
            "the command prove runs each test with",
        ),
        (
            "",
            "prove --norc -e 'perl -Ilib' graders/t/basic.t",
            "the command prove runs each test with",
        ),
        ("", "prove --norc -vI lib graders/t/basic.t", "`prove -vI`"),
        (
            "",
            "prove --norc --rc=lib/new.rc graders/t/basic.t",
            "`prove --rc",
        ),
        (
            "",
            "prove --norc --rc lib/new.rc graders/t/basic.t",
            "`prove --rc",
        ),
        (
            "",
            "HARNESS_PERL_SWITCHES=-Ilib prove --norc graders/t/basic.t",
            "HARNESS_PERL_SWITCHES",
        ),
        (
            "",
            "env HARNESS_PERL_SWITCHES=-Ilib prove --norc graders/t/basic.t",
            "HARNESS_PERL_SWITCHES",
        ),
        (
            "",
            r"TAR_OPTIONS='--to-command=sh\ graders/grade' tar -xf a.tar",
            "TAR_OPTIONS",
        ),
        ("", "awk -W exec lib/new.awk result.txt", "lib/new.awk"),
        ("", "awk -Wexec lib/new.awk result.txt", "lib/new.awk"),
        ("", "awk -We lib/new.awk result.txt", "lib/new.awk"),
        (
            "",
            r"echo x | sed -n -l 5 's/x/sh graders\/grade/e'",
            "the `e` flag of sed's `s`",
        ),
        (
            "",
            r"echo x | sed -n --line-length 5 's/x/sh graders\/grade/e'",
            "the `e` flag of sed's `s`",
        ),
        (
            "",
            "echo x | sed -nl 5 's,x,sh graders/grade,e'",
            "the `e` flag of sed's `s`",
        ),
        (
            "",
            "jq -n -e --argfile x data.json 'include \"lib/chk\"; ok'",
            "jq's `include`/`import`",
        ),
        (
            "",
            "jq -n -e --argfile x data.json 'import \"lib/chk\" as c; c::ok'",
            "jq's `include`/`import`",
        ),
        (
            "",
            "git -C . -c alias.t='!sh graders/grade' t",
            "`git -c` with `alias.t=!sh graders/grade`",
        ),
        (
            "",
            "git --git-dir=/nonexistent -C . -c alias.t='!sh graders/grade' t",
            // Review 19: `--git-dir` is refused before the `-c` is read.
            "`git --git-dir",
        ),
    ]);
}

#[test]
fn rev17_e03_e17_an_awk_pipe_behind_a_string_or_a_continuation_is_refused() {
    let pipe = "awk's `|`";
    refused(&[
        ("", r#"awk 'BEGIN{print "}/" | "sh graders/grade"}'"#, pipe),
        (
            "",
            r#"awk 'BEGIN{print "}/" | "sh graders/grade"; close("sh graders/grade")}'"#,
            pipe,
        ),
        ("", r#"awk 'BEGIN{print ";/" | "sh graders/grade"}'"#, pipe),
        (
            "",
            "awk 'BEGIN{\"sh graders/grade\" |\\\ngetline; exit 0}'",
            pipe,
        ),
        (
            "",
            "awk 'BEGIN{print \"x\" \\\n\"/\" | \"sh graders/grade\"}'",
            pipe,
        ),
    ]);
}

#[test]
fn rev17_e04_e17_the_perl_debugger_after_l_or_0_in_a_cluster_is_refused() {
    for line in [
        "perl -ld graders/pgrade </dev/null",
        "perl -wld graders/pgrade </dev/null",
        "perl -0d graders/pgrade </dev/null",
        "perl -l0d graders/pgrade </dev/null",
    ] {
        assert_refused_at_load(&fixture(line, ""), line, "`perl -d`");
    }
}

#[test]
fn rev17_e13_e16_e21_a_script_missing_at_load_anywhere_inline_or_on_stdin_is_refused() {
    let missing = "does not exist when the plan is loaded";
    refused(&[
        (
            "",
            r#"perl -e 'use IPC::Open3; my $p = open3(undef, my $o, undef, "sh", "lib/new.sh"); waitpid($p, 0); exit($? >> 8)'"#,
            missing,
        ),
        ("", "sh < lib/new.sh", missing),
        ("", "cat lib/new.sh | sh", missing),
        ("", "sh /dev/stdin < lib/new.sh", missing),
        ("", "bash -s < lib/new.sh", missing),
        ("", "sh -s -- a b < lib/new.sh", missing),
        ("", ". /dev/stdin < lib/new.sh", missing),
        ("", "python3 -I - < lib/new.py", missing),
        ("", "python3 -I < lib/new.py", missing),
        ("", "node < lib/new.js", missing),
        ("", "perl - < lib/new.pl", missing),
        ("", "awk -f - < lib/new.awk", missing),
        ("", "awk -f /dev/stdin < lib/new.awk", missing),
        ("", "cat < lib/new.sh | sh", missing),
        ("", "cat lib/new.py | python3 -I", missing),
        ("", "tail -n +1 lib/new.sh | sh", missing),
        ("", "sh 0< lib/new.sh", missing),
        ("", "< lib/new.sh sh", missing),
        (
            "",
            r#"python3 -I -c 'import timeit; timeit.timeit(open("lib/new.py").read(), number=1)'"#,
            "python's `timeit`",
        ),
        (
            "",
            r#"python3 -I -c 'import cProfile; cProfile.run(open("lib/new.py").read())'"#,
            "python's `cProfile`",
        ),
        (
            "",
            r#"python3 -I -c 'import trace; trace.Trace(count=0, trace=0).run(open("lib/new.py").read())'"#,
            "python's `trace`",
        ),
    ]);
}

#[test]
fn rev17_e06_e05_python_m_pickle_and_the_modules_that_run_a_file_are_refused() {
    refused(&[
        ("", "python3 -I -m pickle lib/d.pkl", "`python -m pickle`"),
        ("", "python3 -I -m shelve lib/d", "`python -m shelve`"),
        (
            "",
            "python3 -I -m trace --trackcalls lib/new.py",
            "`python -m trace`",
        ),
        (
            "",
            "python3 -I -m pdb -c continue lib/new.py",
            "`python -m pdb`",
        ),
    ]);
}

#[test]
fn rev17_e12_timeouts_duration_script_c_and_tcl_on_stdin_are_refused() {
    let missing = "does not exist when the plan is loaded";
    refused(&[
        ("", "timeout inf sh lib/new.sh", missing),
        ("", "timeout infinity sh lib/new.sh", missing),
        ("", "timeout .9m sh lib/new.sh", missing),
        ("", "timeout +5 sh lib/new.sh", missing),
        ("", "timeout ' 5' sh lib/new.sh", missing),
        ("", "timeout -s KILL inf sh lib/new.sh", missing),
        ("", "script -qec 'sh lib/new.sh' /dev/null", "`script`"),
        (
            "",
            "echo 'exit [catch {exec sh lib/new.sh}]' | tclsh",
            "a Tcl shell",
        ),
    ]);
}

#[test]
fn rev17_e10_honest_awk_jq_sed_python_and_git_lines_are_accepted() {
    for line in [
        r#"awk 'BEGIN{FS="|"} $1=="a"{v=$2} END{exit v!="right"}' data.txt"#,
        r#"awk '{split($0, p, "|")} p[1]=="a"{v=p[2]} END{exit v!="right"}' data.txt"#,
        r#"awk '{print $1 "|" $2}' data.txt | grep -q 'a|right'"#,
        r#"awk '{printf "%s|%s\n", $1, $2}' data.txt | grep -q 'a|'"#,
        r#"awk '$0 ~ "right|ok"{n++} END{exit !n}' data.txt"#,
        "awk '$1 ~ /right|fine/ {n++} END {exit !n}' data.txt",
        "awk '{ x = $2 / 2 } END { exit x > 1 }' data.txt",
        "jq -e '.include' data.json",
        "jq -e '.import == 1' data.json",
        r#"jq -e 'has("include")' data.json"#,
        "sed 's/right/ok/ # normalise' data.txt | grep -q ok",
        "echo x | sed --expression=s/x/y/ --quiet",
        r#"python3 -I -c 'import subprocess, sys; sys.exit(subprocess.run(["sed", "-n", "s/right/ok/p", "result.txt"], capture_output=True).stdout != b"ok\n")'"#,
        "git -c color.ui=never diff --no-index --quiet data.txt data.txt",
        "git -c core.quotepath=off -C . status --porcelain --ignored",
        "timeout 10 sh graders/grade",
        "timeout -k 5 10 sh graders/grade",
        "sh < graders/grade",
        "cat graders/grade | sh",
        "echo 'exit 0' | sh",
        "perl -lne 'print if /right/' result.txt",
        "perl -0777 -ne 'exit(/right/ ? 0 : 1)' result.txt",
        "prove --norc -v graders/t/basic.t",
        "make -B --directory=tests c",
        // Review 17, e31.
        r#"jq -e '.include == 1 and ("import" | test("import"))' data.json"#,
        r#"awk 'BEGIN{OFS="|"} {$1=$1; print}' data.txt | grep -q 'a|right'"#,
        r#"awk '{gsub(/\|/, ",")} 1' data.txt | grep -q a"#,
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
}

/// `fixture` with node graders: `graders/main.js` requires `./helper.js`, which requires
/// the bare package `okcheck`; `graders/main.mjs` imports `okpre` for its side effects;
/// and a `node_modules` holding some other package (`present`) in the task's folder.
fn node_fixture(check: &str) -> Fixture {
    let f = fixture(check, "");
    write_files(
        &f,
        &[
            (
                "graders/main.js",
                "process.exit(require(\"./helper.js\")() ? 0 : 1)\n",
            ),
            (
                "graders/helper.js",
                "module.exports = require(\"okcheck\");\n",
            ),
            ("graders/main.mjs", "import \"okpre\";\nprocess.exit(1);\n"),
            ("graders/check.js", "process.exit(1)\n"),
            (
                "node_modules/present/index.js",
                "module.exports = () => true;\n",
            ),
        ],
    );
    f
}

#[test]
fn rev17_e08_e14_bare_node_names_by_any_spelling_or_transitively_are_refused() {
    for line in [
        r#"node -e 'process.exit(require ("okcheck")()?0:1)'"#,
        "node -e 'process.exit(require\n(\"okcheck\")()?0:1)'",
        r#"node -e 'process.exit(require(("okcheck"))()?0:1)'"#,
        r#"node -e 'process.exit(require("okcheck",)()?0:1)'"#,
        "node graders/main.js",
        "node graders/main.mjs",
        r#"node -e 'process.exit(require("child_process").spawnSync("node",["-e","process.exit(require(\"okcheck\")()?0:1)"]).status)'"#,
        // The task's folder has a `node_modules`, without the package: a trial adds it.
        r#"node -e 'process.exit(require("okcheck")()?0:1)'"#,
        "node -r okpre graders/check.js",
    ] {
        assert_refused_at_load(&node_fixture(line), line, "a package node looks up");
    }
    // A package the task's `node_modules` holds at load is refused from inline code too
    // since review 26 (01): a trial's `./package.json` named like it is read first.
    let line = r#"node -e 'process.exit(require("present")()?0:1)'"#;
    assert_refused_at_load(&node_fixture(line), line, "`package.json`");
    // `Array.from("…")` is no refusal.
    let line = r#"node -e 'process.exit(Array.from("ab").length == 2 ? 0 : 1)'"#;
    let out = check(&node_fixture(line)).get_output().clone();
    assert_eq!(
        out.status.code(),
        Some(0),
        "`{line}` refused:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn rev17_e33_e41_e50_a_program_from_stdin_or_from_xargs_find_input_is_refused() {
    refused(&[
        (
            "",
            r#"echo 'BEGIN{system("sh graders/grade")}' | awk -f -"#,
            "reading its program file from stdin",
        ),
        (
            "",
            r#"echo 'BEGIN{system("sh graders/grade")}' | awk -f /dev/stdin"#,
            "reading its program file from stdin",
        ),
        (
            "",
            r"printf '1e sh graders/grade\n' | sed -n -f - data.txt",
            "reading its program file from stdin",
        ),
        (
            "",
            r"printf 'c:\n\t@sh graders/grade\n' | make -f - c",
            "reading its program file from stdin",
        ),
        (
            "",
            "printf -- '--eval=c: ; @sh graders/grade' | xargs -0 make -f /dev/null c",
            "`xargs` running `make`",
        ),
        (
            "",
            "echo ./lib/new.sh | xargs -n1 env",
            // The allow-list of programs (review 16) refuses `env` here first.
            "`env`",
        ),
        ("", "printf 'lib/new.sh' | xargs -0 timeout 10", "`timeout`"),
        ("", "find lib -name new.sh -exec {} +", "`find -exec {}`"),
    ]);
}

#[test]
fn rev17_e23_e45_e48_e49_programs_that_run_what_gate_does_not_read_are_refused() {
    let missing = "does not exist when the plan is loaded";
    refused(&[
        ("", "./lib/new.sh", missing),
        ("", "lib/new.sh", missing),
        ("", "test -x lib/new.sh && ./lib/new.sh", missing),
        ("", "taskset 1 sh lib/new.sh", "`taskset`, a launcher"),
        (
            "",
            "strace -f -o /dev/null sh lib/new.sh",
            "`strace`, a launcher",
        ),
        ("", "fakeroot sh lib/new.sh", "`fakeroot`, a launcher"),
        (
            "",
            "sqlite3 :memory: '.shell sh graders/grade'",
            "`sqlite3`, a program with a command language",
        ),
        (
            "",
            "zip -q -T -TT 'sh graders/grade' out.zip data.txt",
            // The allow-list of programs (review 16) refuses `zip` here first.
            "`zip`",
        ),
        (
            "",
            "gcc -wrapper sh,graders/grade -E -x c /dev/null -o /dev/null",
            "`gcc",
        ),
        ("", "gcc -B lib/ -c -x c /dev/null -o /dev/null", "`gcc"),
        ("", "jq --run-tests lib/new.txt", "`--run-tests`"),
    ]);
}

#[test]
fn rev17_e24_e26_e32_e34_e47_e53_e55_e56_more_spellings_of_the_same_classes_are_refused() {
    refused(&[
        (
            "",
            r#"python3 -I -c 'import sys; m = __import__("doc" "test"); sys.exit(m.testfile("lib/doc.txt", module_relative=False).failed)'"#,
            "python's `doctest`",
        ),
        (
            "",
            "python3 -I -m cProfile lib/new.py",
            "`python -m cProfile`",
        ),
        ("", "python3 -I -m pydoc ./lib/new.py", "`python -m pydoc`"),
        (
            "",
            "python3 -I -m pdb -c continue graders/grade",
            "`python -m pdb`",
        ),
        (
            "",
            "perl -I graders -d graders/pgrade </dev/null",
            "`perl -d`",
        ),
        (
            "",
            "python3 -I -c 'import os, sys; sys.exit(os.\u{ff53}\u{ff59}\u{ff53}\u{ff54}\u{ff45}\u{ff4d}(\"sh lib/new.sh\") >> 8)'",
            "NFKC",
        ),
        (
            "",
            r#"node -e 'import("FILE:///nonexistent/lib/new.mjs")'"#,
            "the URL",
        ),
        // e26: an environment set in code for a child process.
        (
            "",
            r#"python3 -I -c 'import os, subprocess, sys; os.environ["PYTHONPATH"] = "lib"; sys.exit(subprocess.call(["python3", "graders/grade"]))'"#,
            "sets an environment",
        ),
        (
            "",
            r#"perl -e '$ENV{PERL5OPT} = "-Ilib"; exit(system("perl", "graders/pgrade") >> 8)'"#,
            "sets an environment",
        ),
        (
            "",
            r#"node -e 'process.env.NODE_OPTIONS = "--require ./lib/pre.js"; process.exit(require("child_process").spawnSync("node", ["-v"]).status)'"#,
            "sets an environment",
        ),
        // e32: a regular expression after `)` or perl's `split` holding a quote.
        (
            "",
            r#"node -e 'if (1) /"/.test("a"); process.exit(require("child_process").spawnSync("sh",["lib/new.sh"]).status) // "'"#,
            "which holds a quote",
        ),
        (
            "",
            r#"perl -e '@x = split /"/, "a"; exit(system("sh lib/new.sh") >> 8); # "'"#,
            "which holds a quote",
        ),
        (
            "",
            r#"perl -e 'exit(system("sh", "gr\waders/grade") >> 8)'"#,
            "write the path without escapes",
        ),
        (
            "",
            r#"node -e 'process.exit(require("child_process").spawnSync("sh",["gr\kaders/grade"]).status)'"#,
            "write the path without escapes",
        ),
    ]);
}

#[test]
fn rev17_e52_e57_node_reads_the_script_past_option_values_and_the_graders_own_packages() {
    for line in [
        "node -r ./graders/check.js graders/main.js",
        "node --title t graders/main.js",
    ] {
        assert_refused_at_load(&node_fixture(line), line, "a package node looks up");
    }
    // A grader with its own dependencies in `graders/node_modules` (node looks there
    // first, and the grader's folder is protected whole) is accepted.
    let line = "node graders/dep.js";
    let f = node_fixture(line);
    write_files(
        &f,
        &[
            (
                "graders/dep.js",
                "process.exit(require(\"okdep\")() ? 0 : 1)\n",
            ),
            (
                "graders/node_modules/okdep/index.js",
                "module.exports = () => false;\n",
            ),
            ("graders/package.json", "{}\n"),
        ],
    );
    let out = check(&f).get_output().clone();
    assert_eq!(
        out.status.code(),
        Some(0),
        "`{line}` refused:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
