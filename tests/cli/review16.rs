//! Reviews 16 and 17 (issue 29): the largest class both found in the review-14 fixes, a
//! program whose arguments gate does not read hiding the command it runs (`taskset 1 sh
//! lib/new.sh`, `strace`, `sqlite3 .shell`, `find -exec env …`): a check line's programs are
//! now read against an allow-list (`src/plan/programs.rs`). Each form is refused when the
//! plan is loaded (exit 2); the honest lines of the allowed programs stay accepted, and a
//! wrong answer still FAILs through them.

use crate::common::*;

/// A task folder with a protected grader `graders/grade`; the agent answers `answer`.
fn fixture(check: &str, answer: &str) -> Fixture {
    let f = Fixture::new(&plan("", check));
    for (file, text) in [
        ("graders/grade", "grep -qx right result.txt\n".to_string()),
        ("agent.sh", format!("echo {answer} > result.txt\n")),
        ("list", "graders/grade\n".to_string()),
    ] {
        std::fs::create_dir_all(f.path(file).parent().unwrap()).unwrap();
        std::fs::write(f.path(file), text).unwrap();
    }
    f
}

#[test]
fn rev16_rev17_a_program_gate_does_not_read_is_refused_at_load() {
    for (line, what) in [
        // rev16 A, rev17 e12: a prefix gate did not list hid the command after it.
        ("taskset 1 sh lib/new.sh", "`taskset`"),
        (
            "chpst -u nobody sh lib/new.sh",
            "`chpst`, a program whose arguments gate does not read",
        ),
        ("/usr/bin/taskset 1 sh graders/grade", "`taskset`"),
        ("setpriv --reuid=0 sh lib/new.sh", "`setpriv`"),
        ("prlimit --nofile=64 sh lib/new.sh", "`prlimit`"),
        ("strace -o /dev/null sh lib/new.sh", "`strace`"),
        ("script -qec 'sh lib/new.sh' /dev/null", "`script`"),
        ("flock /tmp/l sh lib/new.sh", "`flock`"),
        // rev16 H/J, rev17: tools whose own options or commands run a command.
        ("sqlite3 x.db '.shell sh lib/new.sh'", "`sqlite3`"),
        ("zip -T -TT 'sh lib/new.sh' a.zip result.txt", "`zip`"),
        ("gcc -wrapper sh,lib/new.sh -E -x c /dev/null", "`gcc`"),
        // The program `find -exec` and `xargs` run.
        ("find . -maxdepth 0 -exec env sh lib/new.sh \\;", "env"),
        ("xargs -a list taskset 1 sh", "`taskset`"),
        ("xargs --max-l=1 echo", "the option `--max-l=1` of `xargs`"),
    ] {
        assert_refused_at_load(&fixture(line, "wrong"), line, what);
    }
}

#[test]
fn rev16_rev17_honest_lines_of_allowed_programs_are_accepted_and_judge() {
    for line in [
        "grep -qx right result.txt",
        "test -f result.txt && grep -q right result.txt",
        "sh graders/grade",
        "./graders/grade",
        "/usr/bin/grep -qx right result.txt",
        "cat result.txt | tr -d ' ' | grep -qx right",
        "find . -maxdepth 1 -name result.txt -exec grep -qx right {} +",
        "echo result.txt | xargs grep -qx right",
    ] {
        // Run as a program (`./graders/grade`), the grader needs a `#!` and its mode.
        let made = |answer: &str| {
            let f = fixture(line, answer);
            if line.starts_with("./graders") {
                use std::os::unix::fs::PermissionsExt;
                let g = f.path("graders/grade");
                std::fs::write(&g, "#!/bin/sh\ngrep -qx right result.txt\n").unwrap();
                std::fs::set_permissions(&g, std::fs::Permissions::from_mode(0o755)).unwrap();
            }
            f
        };
        let right = made("right");
        check(&right).code(0);
        assert_run_exits(&right, line, 0);
        assert_run_exits(&made("wrong"), line, 1);
    }
}

#[test]
fn rev16_n_cargo_and_go_test_get_the_runner_warning_as_make_and_npm_do() {
    for line in ["cargo test", "go test ./..."] {
        let f = fixture(line, "right");
        check(&f)
            .code(0)
            .stderr(predicates::str::contains("warning: task `agent`"));
    }
}

#[test]
fn rev16_p_a_cd_into_a_folder_missing_at_load_is_refused() {
    // Review 16, P: `cd sub && sh graders/grade` with `sub/` missing at load: gate read
    // `graders/grade` in the old folder and protected it; the trial created
    // `sub/graders/grade`, which ran.
    for line in [
        "cd sub && sh graders/grade",
        "pushd sub && sh graders/grade",
    ] {
        assert_refused_at_load(
            &fixture(line, "wrong"),
            line,
            "a folder that does not exist when the plan is loaded",
        );
    }
    // A folder that exists at load is followed as before.
    let f = fixture("cd graders && sh grade", "wrong");
    std::fs::write(f.path("graders/grade"), "grep -qx right ../result.txt\n").unwrap();
    check(&f).code(0);
    assert_run_exits(&f, "cd graders && sh grade", 1);
}

#[test]
fn rev19_allowed_programs_that_run_a_program_they_are_given_are_refused() {
    // Review 19 (a01, a02, a03, a05, a09): `sort --compress-program`, `sdiff`/`diff3
    // --diff-program`, the dynamic loader named by a path outside the listed system folders,
    // and git sub-commands that run a command an option names got a script the trial
    // created past the allow-list.
    for (line, what) in [
        (
            "seq 9 | sort -S 64K --compress-program=lib/new >/dev/null; sh graders/grade",
            "`sort --compress-program=lib/new`",
        ),
        (
            "seq 9 | sort --compress-prog lib/new >/dev/null; sh graders/grade",
            "`sort --compress-prog`",
        ),
        ("sdiff -s --diff-program=lib/new a b", "`sdiff`"),
        ("diff3 --diff-program=lib/new a b c", "`diff3`"),
        (
            "/lib64/ld-linux-x86-64.so.2 /bin/sh lib/new.sh",
            "the dynamic loader",
        ),
        (
            "/usr/lib64/ld-linux-x86-64.so.2 /bin/sh lib/new.sh",
            "the dynamic loader",
        ),
        (
            "git ls-remote --upload-pack='sh lib/new.sh' .",
            "`git ls-remote`",
        ),
        (
            "git difftool --no-index -y -x 'sh lib/new.sh' a b",
            "`git difftool`",
        ),
        (
            "git archive --remote=. --exec='sh lib/new.sh' HEAD",
            "`git archive`",
        ),
        (
            "git grep --no-index -O'sh lib/new.sh' x",
            "a pager or an external diff",
        ),
    ] {
        assert_refused_at_load(&fixture(line, "wrong"), line, what);
    }
    // The honest forms stay accepted.
    for line in [
        "sort result.txt | grep -qx right",
        "git diff --no-index --quiet result.txt result.txt",
    ] {
        check(&fixture(line, "right")).code(0);
    }
}

#[test]
fn rev19_a13_a16_a21_variables_that_pick_a_shell_or_a_path_are_refused() {
    // Review 19: make's `SHELL=`/`.SHELLFLAGS=`/`X!=cmd` on the command line, `printf -v
    // PATH`, and `rg --pre` (rg is off the allow-list) ran a script the trial created.
    for (line, what) in [
        (
            "make -f graders/mk c SHELL=lib/new",
            "the make variable `SHELL=lib/new`",
        ),
        (
            "make -f graders/mk c .SHELLFLAGS=lib/new.sh",
            "the make variable",
        ),
        (
            "make -f graders/mk c 'X!=sh lib/new.sh'",
            "the make variable",
        ),
        (
            "printf -v PATH %s lib:/usr/bin:/bin && grep -qx right result.txt",
            "`printf -v`",
        ),
        ("rg --pre lib/new right result.txt", "`rg`"),
    ] {
        assert_refused_at_load(&fixture(line, "wrong"), line, what);
    }
}

#[test]
fn rev19_a13_a22_config_files_and_programs_behind_find_are_read_and_honest_lookups_pass() {
    for (line, what) in [
        ("curl -K lib/c.cfg http://localhost/", "`curl -K"),
        (
            "curl --config lib/c.cfg http://localhost/",
            "`curl --config",
        ),
        ("git --git-dir=lib/repo status", "`git --git-dir"),
        (
            "find . -maxdepth 0 -exec sort --compress-program=lib/new result.txt ;",
            "`sort --compress-program",
        ),
        (
            "echo result.txt | xargs sort --compress-program=lib/new",
            "`sort --compress-program",
        ),
    ] {
        assert_refused_at_load(&fixture(line, "wrong"), line, what);
    }
    // Review 19, a15 (High): lines that look a program up run nothing.
    for line in [
        "command -v grep >/dev/null && grep -qx right result.txt",
        "command -v python3 >/dev/null && grep -qx right result.txt",
        "which grep >/dev/null && grep -qx right result.txt",
    ] {
        let f = fixture(line, "right");
        check(&f).code(0);
        assert_run_exits(&f, line, 0);
    }
}
