//! The `check:` line forms of review 13 (issue 29) that PASSed a wrong answer because gate
//! resolved a path the line names otherwise than the check does, or did not see a program
//! file at all: a script or a loaded file missing at load named by an absolute path, through
//! `/proc/self/cwd` or a plan `env:` value (b14, b17), `/proc/self/cwd` read as gate's own
//! folder (b15, b01), descriptors reached through `/proc/self/root` (b25), the program
//! files of `awk -f`, `sed -f`, `jq -f`, `make -f` / `make -C` (b11, b24, b20), and shell or
//! perl names gate did not read as interpreters (b18). Each test is named after the attack
//! it pins; each agent answers wrong and rewrites every grader it can, so PASS (exit 0) is
//! the break: every line now FAILs (exit 1) or is refused at load (exit 2).

use predicates::prelude::*;

use crate::common::*;

/// A task folder whose graders lie in `lib/` (none of them executable, some without an
/// extension): `lib/chk` (sh), `lib/c.py`, `lib/pgrade` (perl), `lib/chk_awk`,
/// `lib/chk.awk`, `lib/fix` (sed), `lib/q.jq`, `lib/mk` and `lib/Makefile` (make), `cfg.json`;
/// the agent answers wrong and rewrites every one of them to accept anything (and creates
/// the missing files a line may name: `lib/new.sh`, `lib/.env`, `lib/inc/Foo.pm`, `lib/rc`,
/// `lib/evil.js`).
fn lib_fixture(check: &str, extra: &str) -> Fixture {
    let f = Fixture::new(&plan(extra, check));
    std::fs::create_dir_all(f.path("lib")).unwrap();
    let agent = "echo wrong > result.txt\n\
        printf 'exit 0\\n' > lib/chk\n\
        printf 'import os\\nos._exit(0)\\n' > lib/c.py\n\
        printf 'exit 0;\\n' > lib/pgrade\n\
        printf '{ exit 0 }\\n' > lib/chk_awk; cp lib/chk_awk lib/chk.awk\n\
        printf 's/.*/right/\\n' > lib/fix\n\
        printf 'true\\n' > lib/q.jq\n\
        printf 'check:\\n\\ttrue\\n' > lib/mk; cp lib/mk lib/Makefile\n\
        printf 'exit 0\\n' > lib/new.sh\n\
        printf 'process.exit(0)\\n' > lib/evil.js\n\
        printf 'NODE_OPTIONS=\"--require ./lib/evil.js\"\\n' > lib/.env\n\
        mkdir -p lib/inc; printf 'package Foo; exit 0; 1;\\n' > lib/inc/Foo.pm\n\
        printf 'exit 0\\n' > lib/rc\n\
        exit 0\n";
    for (file, text) in [
        ("lib/chk", "grep -qx right result.txt\n"),
        (
            "lib/c.py",
            "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
        ),
        (
            "lib/pgrade",
            "open F, 'result.txt'; $l = <F>; chomp $l; exit($l eq 'right' ? 0 : 1);\n",
        ),
        ("lib/chk_awk", "{ exit ($0 == \"right\" ? 0 : 1) }\n"),
        ("lib/chk.awk", "{ exit ($0 == \"right\" ? 0 : 1) }\n"),
        ("lib/fix", "/^right$/!s/.*/BAD/\n"),
        ("lib/q.jq", ".port == 8080\n"),
        (
            "lib/mk",
            ".PHONY: check\ncheck:\n\tgrep -qx right result.txt\n",
        ),
        (
            "lib/Makefile",
            ".PHONY: check\ncheck:\n\tgrep -qx right ../result.txt\n",
        ),
        ("cfg.json", "{\"port\": 80}\n"),
        (
            "graders/check.js",
            "process.exit(require('fs').readFileSync('result.txt','utf8').trim()=='right'?0:1)\n",
        ),
        ("graders/grade", "grep -qx right result.txt\n"),
        ("agent.sh", agent),
    ] {
        std::fs::create_dir_all(f.path(file).parent().unwrap()).unwrap();
        std::fs::write(f.path(file), text).unwrap();
    }
    f
}

/// Each of `lines` is refused by `gate check` (exit 2), naming `what`.
fn refused(lines: &[(&str, &str)], extra: &str) {
    for (line, what) in lines {
        assert_refused_at_load(&lib_fixture(line, extra), line, what);
    }
}

/// Each of `lines`, run, FAILs: accepted, and the grader it runs protected.
fn fails(lines: &[&str]) {
    for line in lines {
        assert_run_exits(&lib_fixture(line, ""), line, 1);
    }
}

/// The fixture's folder as the plan's `env:` and the check see it.
fn here(f: &Fixture) -> String {
    f.dir.path().display().to_string()
}

#[test]
fn b14_a_script_missing_at_load_is_refused_by_its_absolute_path_proc_cwd_or_env_value() {
    // `W` is the task's folder, absolute.
    for line in [
        "sh W/lib/new.sh",
        "python3 -I W/lib/new.py",
        "node W/lib/new.js",
        "perl W/lib/new.pl",
        ". W/lib/new.sh",
        "sh W/lib/../lib/sub/new.sh",
        "sh /proc/self/cwd/lib/new.sh",
        "sh /proc/thread-self/cwd/lib/sub/new.sh",
    ] {
        let f = lib_fixture("true", "");
        std::fs::write(f.plan(), plan("", &line.replace('W', &here(&f)))).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "does not exist when the plan is loaded",
        ));
    }
    // A plan `env:` value, absolute, and a path built on one.
    for check_line in ["sh $G", "sh $D/lib/new.sh"] {
        let f = lib_fixture(check_line, "");
        let env = format!("    env: {{G: {w}/lib/new.sh, D: {w}}}\n", w = here(&f));
        std::fs::write(f.plan(), plan(&env, check_line)).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "does not exist when the plan is loaded",
        ));
    }
    // Missing outside every folder the trials write: nothing a trial could create.
    let f = lib_fixture("sh /nonexistent-gate-review13/new.sh", "");
    check(&f).success();
}

#[test]
fn b15_proc_self_cwd_is_the_checks_folder_when_gate_runs_from_another() {
    for line in [
        "sh /proc/self/cwd/lib/chk",
        "sh /proc/self/root/proc/self/cwd/lib/chk",
    ] {
        let outer = tempfile::tempdir().unwrap();
        let f = lib_fixture(line, "");
        let w = outer.path().join("w");
        std::fs::rename(f.dir.path(), &w).unwrap();
        let out = gate()
            .current_dir(outer.path())
            .args([
                "run",
                "w/plan.yaml",
                "--ledger",
                "w/out/l.jsonl",
                "--no-step-summary",
            ])
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .output()
            .unwrap();
        // Put the folder back for the fixture's own clean-up.
        std::fs::rename(&w, f.dir.path()).unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "`{line}` from the parent folder: wanted FAIL (1)\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
fn b01_pycache_prefix_through_proc_self_cwd_or_the_tasks_absolute_folder_is_refused() {
    refused(
        &[
            (
                "python3 -I -X pycache_prefix=/proc/self/cwd/cache lib/c.py",
                "pycache_prefix",
            ),
            (
                "python3 -I -Xpycache_prefix=/proc/self/cwd/cache lib/c.py",
                "pycache_prefix",
            ),
            (
                "python3.12 -I -X pycache_prefix=/proc/thread-self/cwd/x/../cache lib/c.py",
                "pycache_prefix",
            ),
        ],
        "",
    );
    let f = lib_fixture("true", "");
    let line = format!("python3 -I -X pycache_prefix={}/cache lib/c.py", here(&f));
    std::fs::write(f.plan(), plan("", &line)).unwrap();
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("pycache_prefix"));
}

#[test]
fn b17_a_file_an_option_loads_missing_at_load_is_refused_by_any_spelling() {
    refused(
        &[
            ("node --env-file=lib/.env graders/check.js", "`lib/.env`"),
            (
                "node --env-file-if-exists=lib/.env graders/check.js",
                "`lib/.env`",
            ),
            ("perl -Ilib/inc -MFoo lib/pgrade", "`lib/inc`"),
            ("perl -I lib/inc -MFoo lib/pgrade", "`lib/inc`"),
            ("bash --rcfile lib/rc -i graders/grade", "`lib/rc`"),
            (
                "node -r /proc/self/cwd/lib/evil.js graders/check.js",
                "`/proc/self/cwd/lib/evil.js`",
            ),
        ],
        "",
    );
    // A bare package name is looked up in `./node_modules` first: refused when the task's
    // folder has none, a trial could create it (review 14, c44).
    let f = lib_fixture("node -r ts-node/register graders/check.js", "");
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("ts-node/register"));
    let f = lib_fixture("perl -Ilib -MFoo lib/pgrade", "");
    check(&f).success();
}

#[test]
fn b25_a_descriptor_reached_through_proc_self_root_is_refused() {
    refused(
        &[
            ("sh /proc/self/root/dev/fd/3 3< lib/chk", "descriptor"),
            ("sh /proc/self/root/proc/self/fd/3 3< lib/chk", "descriptor"),
            (
                "sh /proc/thread-self/root/dev/fd/3 3< lib/chk",
                "descriptor",
            ),
            (
                "sh /proc/self/root/proc/self/root/dev/fd/4 4< lib/chk",
                "descriptor",
            ),
        ],
        "",
    );
    // stdin through the root link: read as stdin, and what `<` feeds it protected.
    fails(&["sh /proc/self/root/dev/stdin < lib/chk"]);
}

#[test]
fn b11_b24_a_program_file_of_awk_sed_jq_or_make_is_a_grader_whatever_its_name() {
    let mut lines = vec![
        "awk -f lib/chk_awk result.txt",
        "awk -flib/chk.awk result.txt",
        "awk --file=lib/chk_awk result.txt",
        "sed -f lib/fix result.txt | grep -qx right",
        "sed -flib/fix result.txt | grep -qx right",
        "sed --file=lib/fix result.txt | grep -qx right",
        "sed -n -f lib/fix -e p result.txt | grep -qx right",
        "make -sB -f lib/mk check",
        "make -s -B --file=lib/mk check",
        "make -s --always-make --makefile=lib/mk check",
        "make -sB -flib/mk check",
        // Run by `find -exec` or `xargs`: the tool after them.
        "find . -name result.txt -exec awk -f lib/chk_awk {} +",
        "echo result.txt | xargs awk -f lib/chk_awk",
    ];
    if has("jq") {
        lines.extend([
            "jq -e -f lib/q.jq cfg.json",
            "jq -e --from-file lib/q.jq cfg.json",
        ]);
    }
    if has("gawk") {
        lines.push("gawk --file=lib/chk_awk result.txt");
    }
    fails(&lines);
    refused(
        &[
            ("awk -f lib/new_awk result.txt", "`lib/new_awk`"),
            ("sed -flib/new result.txt", "`lib/new`"),
            ("make -f lib/new.mk check", "`lib/new.mk`"),
            ("jq -e -f lib/new.jq cfg.json", "`lib/new.jq`"),
            ("busybox awk -f lib/new_awk result.txt", "`lib/new_awk`"),
            (
                "find . -name result.txt -exec awk -f lib/new_awk {} +",
                "`lib/new_awk`",
            ),
            (
                "echo result.txt | xargs awk -f lib/new_awk",
                "`lib/new_awk`",
            ),
        ],
        "",
    );
}

#[test]
fn b20_make_c_runs_the_folders_makefile_which_is_a_grader() {
    fails(&[
        "make -sB -C lib check",
        "make -sB --directory=lib check",
        "make -sB -Clib check",
    ]);
    // No makefile there at load, in a folder the trials write: theirs to create.
    refused(&[("make -s -C lib/sub check", "`make -C lib/sub`")], "");
    // The warning for a runner names the folder it reads, and none when it is protected.
    let f = lib_fixture("make -sB -C lib check", "");
    check(&f).stderr(predicate::str::contains("runs `make`").not());
}

#[test]
fn b18_rbash_and_a_debian_multiarch_perl_are_interpreters() {
    // Read as interpreters, a missing script is refused at load wherever they are installed.
    refused(
        &[
            ("rbash lib/new.sh", "does not exist when the plan is loaded"),
            (
                "perl5.36-x86_64-linux-gnu lib/new.pl",
                "does not exist when the plan is loaded",
            ),
            (
                "sh.distrib lib/new.sh",
                "does not exist when the plan is loaded",
            ),
            (
                "bash-static lib/new.sh",
                "does not exist when the plan is loaded",
            ),
            (
                "busybox sh lib/new.sh",
                "does not exist when the plan is loaded",
            ),
        ],
        "",
    );
    let mut lines = Vec::new();
    if has("rbash") {
        lines.push("rbash lib/chk");
    }
    if has("perl5.36-x86_64-linux-gnu") {
        lines.push("perl5.36-x86_64-linux-gnu lib/pgrade");
    }
    fails(&lines);
}

#[test]
fn review13_honest_lines_stay_accepted() {
    for line in [
        "awk -f lib/chk.awk result.txt",
        "sed -f lib/fix result.txt | grep -qx right",
        "make -sB -C lib check",
        "perl -Ilib -MFoo lib/pgrade",
        "sh /proc/self/cwd/lib/chk",
        "python3 -I -X pycache_prefix=/nonexistent-gate-review13 lib/c.py",
        "python3 -I -X utf8=1 lib/c.py",
        "bash -euo pipefail lib/chk",
        "sh lib/chk < result.txt",
        "grep -qx right result.txt",
    ] {
        let f = lib_fixture(line, "");
        check(&f).success();
    }
}
