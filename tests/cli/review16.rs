//! Reviews 16 and 17 (issue 29): the largest class both found in the review-14 fixes, a
//! program whose arguments gate does not read hiding the command it runs (`taskset 1 sh
//! lib/new.sh`, `strace`, `sqlite3 .shell`, `find -exec env …`): a check line's programs are
//! now read against an allow-list (`src/plan/programs.rs`). Each form is refused when the
//! plan is loaded (exit 2); the honest lines of the allowed programs stay accepted, and a
//! wrong answer still FAILs through them.

use crate::common::*;

/// A task folder with a protected grader `graders/grade`; the agent answers `answer`. A
/// grader named `../graders/…` after a `cd` is named by its absolute path: a `..` after a
/// `cd` into a folder the trials write is refused at load (review 64, 03), and the tests
/// that `cd app` are about the walls that stand when the check runs there.
fn fixture(check: &str, answer: &str) -> Fixture {
    let f = Fixture::new(&plan("", check));
    if check.contains("../graders/") {
        let graders = format!("{}/graders/", f.dir.path().display());
        let text = std::fs::read_to_string(f.plan()).unwrap();
        std::fs::write(f.plan(), text.replace("../graders/", &graders)).unwrap();
    }
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

/// [`fixture`] made a git repository with `files` written and committed, if git is here
/// (the test says it skipped otherwise). The agent answers `answer`.
fn committed_repo(line: &str, answer: &str, files: &[(&str, &str)]) -> Option<Fixture> {
    let f = fixture(line, answer);
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .args(args)
            .current_dir(f.dir.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    if !git(&["init", "-q"]) {
        skip_or_fail(&current_test(), "git", "git is not installed");
        return None;
    }
    write_files(&f, files);
    let mut add = vec!["add", "--"];
    add.extend(files.iter().map(|(name, _)| *name));
    assert!(git(&add));
    let who = ["-c", "user.name=t", "-c", "user.email=t@t"];
    assert!(git(&[&who[..], &["commit", "-qm", "x"]].concat()));
    Some(f)
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
    // Since round 4, session 22, a refusal: no wall compares `Cargo.toml` or `go.mod`.
    for (line, runner) in [("cargo test", "cargo"), ("go test ./...", "go")] {
        let f = fixture(line, "right");
        assert_definition_refused(&f, &format!("runs `{runner}` in `"));
    }
}

#[test]
fn rev16_p_a_cd_into_a_folder_missing_at_load_is_refused() {
    // Review 16, P: `cd sub && sh graders/grade` with `sub/` missing at load: gate read
    // `graders/grade` in the old folder and protected it; the trial created
    // `sub/graders/grade`, which ran.
    // (`pushd` is refused whatever its folder since review 81: dash has none.)
    let line = "cd sub && sh graders/grade";
    assert_refused_at_load(
        &fixture(line, "wrong"),
        line,
        "a folder that does not exist when the plan is loaded",
    );
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
    // The honest forms stay accepted (git in the task's own repository, whose `.git` gate
    // holds read-only; outside one, a trial could create `./.git`: rev17 e19, below).
    for line in [
        "sort result.txt | grep -qx right",
        "git diff --no-index --quiet result.txt result.txt",
    ] {
        let f = fixture(line, "right");
        std::fs::create_dir(f.path(".git")).unwrap();
        check(&f).code(0);
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

/// Review 19's leftovers (its report, "still open"), closed in round 4's last session.
mod rev19_open {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    /// A folder outside the plan's folder and its task folders, holding `name`, a program
    /// that runs what its arguments name (as `rustup run stable sh lib/new.sh` or `pyenv
    /// exec …` do), or a grader.
    fn outside(name: &str, text: &str) -> tempfile::TempDir {
        let home = tempfile::tempdir().unwrap();
        let bin = home.path().join("bin");
        std::fs::create_dir(&bin).unwrap();
        let tool = bin.join(name);
        std::fs::write(&tool, text).unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        home
    }

    #[test]
    fn rev19_an_installed_program_by_a_path_outside_the_plans_folders_is_judged_by_its_name() {
        let runs = "#!/bin/sh\nexec \"$@\"\n";
        // A version manager, wherever it lies (`~/.pyenv/libexec/pyenv`).
        let home = outside("rustup", runs);
        let line = format!(
            "{}/bin/rustup run stable sh lib/new.sh",
            home.path().display()
        );
        assert_refused_at_load(&fixture(&line, "wrong"), &line, "`rustup`");
        // A program in a folder on gate's own PATH (`~/.cargo/bin`, `~/.local/bin`).
        let home = outside("runit", runs);
        let bin = home.path().join("bin");
        let line = format!("{}/runit sh lib/new.sh", bin.display());
        let f = fixture(&line, "wrong");
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let out = gate()
            .current_dir(f.dir.path())
            .env("PATH", &path)
            .args(["check", "plan.yaml"])
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("`runit`, a program whose arguments"), "{err}");
        // A link in the task's folder to a program of the system is that program.
        let f = fixture("bin/taskset 1 sh lib/new.sh", "wrong");
        std::fs::create_dir(f.path("bin")).unwrap();
        std::os::unix::fs::symlink("/usr/bin/taskset", f.path("bin/taskset")).unwrap();
        assert_refused_at_load(&f, "bin/taskset 1 sh lib/new.sh", "`taskset`");
        // The plan's own grader, by an absolute path into its folder, stays its own.
        let f = fixture("", "wrong");
        let grade = f.path("graders/grade");
        std::fs::write(&grade, "#!/bin/sh\ngrep -qx right result.txt\n").unwrap();
        std::fs::set_permissions(&grade, std::fs::Permissions::from_mode(0o755)).unwrap();
        let line = grade.display().to_string();
        std::fs::write(f.plan(), plan("", &line)).unwrap();
        check(&f).code(0);
        assert_run_exits(&f, &line, 1);
    }

    /// Review 20, 16 and 17 (over-refusals of the first fix): a grader kept outside the
    /// repository (`/ci/graders/grade`), by its path or found through the plan's own `env:
    /// PATH`, is the plan's own, as docs/trust.md recommends.
    #[test]
    fn rev20_a_grader_kept_outside_the_repository_is_the_plans_own() {
        let ci = outside("grade", "#!/bin/sh\ngrep -qx right result.txt\n");
        let bin = ci.path().join("bin");
        let by_path = format!("{}/grade", bin.display());
        for (env, line) in [
            (String::new(), by_path.as_str()),
            (
                format!("    env: {{PATH: \"{}:/usr/bin:/bin\"}}\n", bin.display()),
                "grade",
            ),
        ] {
            let f = fixture("", "right");
            std::fs::write(f.plan(), plan(&env, line)).unwrap();
            check(&f).code(0);
            assert_run_exits(&f, line, 0);
            let f = fixture("", "wrong");
            std::fs::write(f.plan(), plan(&env, line)).unwrap();
            assert_run_exits(&f, line, 1);
        }
    }

    #[test]
    fn rev19_git_reads_only_a_repository_a_trial_cannot_make_or_change() {
        // No repository at load: a trial could create `./.git` (or `lib/.git`) whose
        // config runs a command (`core.fsmonitor`) or answers for the grader (rev17 e19:
        // `git diff --no-index` reads the config of a repository it finds too).
        for (line, what) in [
            (
                "git diff --no-index --exit-code result.txt graders/grade",
                "where git looks for its repository first",
            ),
            (
                "git status --porcelain --ignored",
                "where git looks for its repository first",
            ),
            (
                "git -C lib diff --quiet",
                "where git looks for its repository first",
            ),
        ] {
            assert_refused_at_load(&fixture(line, "wrong"), line, what);
        }
        // A repository in a sub-folder the trials write: its `.git` is theirs.
        let f = fixture("git -C sub diff --quiet", "wrong");
        std::fs::create_dir_all(f.path("sub/.git")).unwrap();
        assert_refused_at_load(&f, "git -C sub diff --quiet", "a folder the trials write");
        // A `.git` file (a worktree's pointer) in the task's folder naming no git folder.
        let f = fixture("git diff --quiet", "wrong");
        std::fs::write(f.path(".git"), "gitdir: /elsewhere\n").unwrap();
        assert_refused_at_load(&f, "git diff --quiet", "a `.git` file");
        // The task's own repository, whose `.git` gate holds read-only, is read as before.
        let line = "git diff --quiet -- result.txt";
        let Some(f) = committed_repo(line, "wrong", &[("result.txt", "right\n")]) else {
            return;
        };
        check(&f).code(0);
        assert_run_exits(&f, line, 1);
    }

    #[test]
    fn rev19_runner_options_naming_a_program_or_a_definition_file_are_refused() {
        for (line, what) in [
            ("go test -exec lib/new ./...", "`go -exec`"),
            ("go test -toolexec=lib/new ./...", "`go -toolexec=lib/new`"),
            ("tox -c lib/tox.ini", "`tox -c`"),
            ("just -f lib/justfile check", "`just -f`"),
            (
                "just --justfile=lib/justfile check",
                "`just --justfile=lib/justfile`",
            ),
            ("cargo --config lib/c.toml test", "`cargo --config`"),
            (
                "npm --script-shell=lib/new test",
                "`npm --script-shell=lib/new`",
            ),
            ("npm test --userconfig lib/npmrc", "`npm --userconfig`"),
            ("npm --prefix lib test", "`npm --prefix`"),
        ] {
            assert_refused_at_load(&fixture(line, "wrong"), line, what);
        }
        // npm, pnpm and yarn read any option from the environment too.
        for line in [
            "npm_config_script_shell=lib/new npm test",
            "NPM_CONFIG_USERCONFIG=lib/npmrc npm test",
        ] {
            let f = fixture(line, "wrong");
            check(&f)
                .code(2)
                .stderr(predicates::str::contains("an option of npm, pnpm or yarn"));
        }
    }

    #[test]
    fn rev19_a_runner_in_a_protected_folder_inside_the_trials_folder_is_warned_about() {
        // `cd graders && npm test`: npm puts every folder above's `node_modules/.bin` on
        // the scripts' PATH, pytest reads a `pytest.ini` and `conftest.py` from above.
        for (line, runner) in [
            ("sh graders/grade && cd graders && npm test", "npm"),
            (
                "sh graders/grade && cd graders && python3 -m pytest -q",
                "pytest",
            ),
        ] {
            let f = fixture(line, "right");
            assert_runner_warned_or_refused(&f, runner, &format!("runs `{runner}` in `"));
        }
    }
}

/// Review 20 (issue 29): the attacks of an independent review on review 19's fixes that an
/// honest-looking check line let through, each refused at load (exit 2) or warned about.
mod rev20 {
    use super::*;

    /// A task folder that is a git repository with `config.txt` committed, if git is here.
    fn repo(line: &str) -> Option<Fixture> {
        committed_repo(line, "right", &[("config.txt", "prod\n")])
    }

    #[test]
    fn rev20_06_07_git_started_from_inline_code_reads_a_protected_repository() {
        // The agent edits a tracked file, then hides the edit with `git update-index
        // --assume-unchanged`: with `.git` read-only to the trials, it cannot.
        let agent = "echo right > result.txt\necho hacked > config.txt\ngit update-index --assume-unchanged config.txt\n";
        for line in [
            r#"python3 -I -c "import subprocess, sys; sys.exit(subprocess.call(['git', 'diff', '--quiet']))" && grep -qx right result.txt"#,
            r#"node -e "process.exitCode = require('child_process').spawnSync('git', ['diff', '--quiet']).status" && grep -qx right result.txt"#,
        ] {
            let Some(f) = repo(line) else { return };
            check(&f).code(0);
            std::fs::write(f.path("agent.sh"), agent).unwrap();
            assert_run_exits(&f, line, 1);
        }
        // Outside a repository, inline git is refused as git on the line is.
        let line =
            r#"python3 -I -c "import subprocess; subprocess.call(['git', 'status', '--ignored'])""#;
        assert_refused_at_load(
            &fixture(line, "wrong"),
            line,
            "where git looks for its repository first",
        );
    }

    #[test]
    fn rev20_08_20_a_repository_with_submodules_and_git_status_without_ignored_are_refused() {
        let Some(f) = repo("git diff --quiet && grep -qx right result.txt") else {
            return;
        };
        std::fs::write(f.path(".gitmodules"), "[submodule \"sub\"]\n\tpath = sub\n").unwrap();
        assert_refused_at_load(&f, "git diff --quiet", "which has submodules");
        for (line, what) in [
            (
                "test -z \"$(git status --porcelain)\" && grep -qx right result.txt",
                "`$(git status --porcelain)`",
            ),
            ("git status --porcelain", "`git status` without `--ignored`"),
            (
                "git ls-files --others --exclude-standard",
                "what a `.gitignore` of the work tree excludes",
            ),
            ("git --bare log", "`git --bare`"),
        ] {
            let Some(f) = repo(line) else { return };
            assert_refused_at_load(&f, line, what);
        }
        // `--ignored` lists what a trial's `.gitignore` would hide: the stray folder fails.
        let line = "test -z \"$(git status --porcelain --ignored)\" && grep -qx right result.txt";
        let Some(f) = repo(line) else { return };
        std::fs::write(f.path(".gitignore"), "result.txt\ngate-out/\n").unwrap();
        check(&f).code(0);
        std::fs::write(
            f.path("agent.sh"),
            "echo right > result.txt\nmkdir -p scratch && echo x > scratch/x && echo '*' > scratch/.gitignore\n",
        )
        .unwrap();
        assert_run_exits(&f, line, 1);
    }

    #[test]
    fn rev20_git_location_variables_in_the_task_folder_are_refused() {
        for var in [
            "GIT_INDEX_FILE",
            "GIT_OBJECT_DIRECTORY",
            "GIT_COMMON_DIR",
            "GIT_ALTERNATE_OBJECT_DIRECTORIES",
            "GIT_GRAFT_FILE",
        ] {
            let line = "git diff --quiet";
            let Some(f) = repo(line) else { return };
            let env = format!("    env: {{{var}: \"{}/lib/x\"}}\n", f.dir.path().display());
            std::fs::write(f.plan(), plan(&env, line)).unwrap();
            check(&f).code(2).stderr(predicates::str::contains(var));
        }
    }

    #[test]
    fn rev20_12_a_program_named_through_a_link_the_trials_could_replace_is_refused() {
        let line = "tools/grep -qx right result.txt";
        let f = fixture(line, "wrong");
        std::os::unix::fs::symlink("/usr/bin", f.path("tools")).unwrap();
        assert_refused_at_load(&f, line, "named through a link");
    }

    #[test]
    fn rev20_13_14_23_runners_started_other_ways_get_the_runner_warning() {
        for (line, runner) in [
            ("python3 -Im pytest -q graders/test_x.py", "pytest"),
            ("python3 -I -mpytest -q graders/test_x.py", "pytest"),
            ("python3 -I -W ignore -m pytest -q", "pytest"),
            (
                "python3 -I -c 'import pytest, sys; sys.exit(pytest.main([\"-q\"]))'",
                "pytest",
            ),
            ("node /usr/lib/node_modules/npm/bin/npm-cli.js test", "npm"),
        ] {
            let f = fixture(line, "right");
            write_files(&f, &[("graders/test_x.py", "def test_x():\n    pass\n")]);
            assert_runner_warned_or_refused(&f, runner, &format!("runs `{runner}` in `"));
        }
    }

    #[test]
    fn rev20_21_rev21_07_09_make_without_always_make_in_the_trials_folder_is_refused() {
        // Review 20, 21: `touch check`; review 21, 07 and 09: a prerequisite of a `.PHONY`
        // goal (`touch test`), and the goal `.DEFAULT_GOAL` names.
        let mk = ".PHONY: check\ncheck: test\ntest:\n\tgrep -qx right result.txt\n";
        for line in [
            "make -s -f graders/Makefile check",
            "make -s -f graders/Makefile",
            "make -s -C graders check",
        ] {
            let f = fixture(line, "wrong");
            write_files(&f, &[("graders/Makefile", mk)]);
            // Review 71, 19: its own fix, without the generic "cannot follow" tail.
            let out = check(&f).get_output().clone();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "`{line}` not refused:\n{err}");
            assert!(
                err.contains("`check:` runs `make` without `-B` in a folder the trials write")
                    && err.trim_end().ends_with("add `-B` (`make -B -s check`)")
                    && !err.contains("cannot follow"),
                "`{line}`:\n{err}"
            );
        }
        // With `-B` (or `--always-make`), the trial's `touch check test` changes nothing.
        for line in [
            "make -sB -f graders/Makefile check",
            "make -s --always-make -f graders/Makefile check",
        ] {
            let f = fixture(line, "wrong");
            write_files(&f, &[("graders/Makefile", mk)]);
            std::fs::write(
                f.path("agent.sh"),
                "echo wrong > result.txt\ntouch check test\n",
            )
            .unwrap();
            check(&f).code(0);
            assert_run_exits(&f, line, 1);
        }
    }

    #[test]
    fn rev20_runner_options_in_other_spellings_are_refused() {
        for (line, what) in [
            ("go test --exec=lib/new ./...", "`go --exec=lib/new`"),
            ("go vet -vettool=lib/new ./...", "`go -vettool=lib/new`"),
            ("tox --con=lib/tox.ini", "`tox --con=lib/tox.ini`"),
            (
                "just --justf=lib/justfile check",
                "`just --justf=lib/justfile`",
            ),
            ("npm --scr=lib/new test", "`npm --scr=lib/new`"),
            (
                "npm test --node-opt=--require=./lib/x.js",
                "`npm --node-opt=",
            ),
        ] {
            assert_refused_at_load(&fixture(line, "wrong"), line, what);
        }
        // Options of the same runners that run nothing stay accepted by this rule: npm's with a
        // warning, go's refused by the runner rule alone (no wall compares `go.mod`).
        check(&fixture("npm test --silent", "right")).code(0);
        assert_definition_refused(
            &fixture("go test -count=1 -vet=off ./...", "right"),
            "runs `go` in `",
        );
    }
}

/// Review 21 (issue 29): the attacks of a second independent review on review 20's fixes.
mod rev21 {
    use super::*;

    /// A task folder that is a git repository with `locked.txt` committed and `gate-out/`
    /// ignored, if git is here; the agent answers right and hides an edit of `locked.txt`.
    pub(super) fn repo(line: &str) -> Option<Fixture> {
        let files = [("locked.txt", "v1\n"), (".gitignore", "gate-out/\nout/\n")];
        let f = committed_repo(line, "right", &files)?;
        std::fs::write(
            f.path("agent.sh"),
            "echo right > result.txt\necho tampered > locked.txt\ngit update-index --assume-unchanged locked.txt\n",
        )
        .unwrap();
        Some(f)
    }

    #[test]
    fn rev21_01_13_git_run_by_a_grader_script_or_makefile_reads_a_protected_repository() {
        for (line, file, text) in [
            (
                "sh graders/check.sh",
                "graders/check.sh",
                "git diff --quiet -- locked.txt && grep -qx right result.txt\n",
            ),
            (
                "make -sB -f graders/Makefile check",
                "graders/Makefile",
                "check:\n\tgit diff --quiet -- locked.txt\n\tgrep -qx right result.txt\n",
            ),
        ] {
            let Some(f) = repo(line) else { return };
            write_files(&f, &[(file, text)]);
            check(&f).code(0);
            assert_run_exits(&f, line, 1);
        }
    }

    #[test]
    fn rev21_19_git_dash_c_with_dot_dot_after_a_folder_is_refused() {
        let line = "git -C sub/.. diff --quiet -- locked.txt && grep -qx right result.txt";
        let Some(f) = repo(line) else { return };
        std::fs::create_dir(f.path("sub")).unwrap();
        assert_refused_at_load(&f, line, "`git -C sub/..`");
    }

    #[test]
    fn rev21_06_git_status_of_tracked_files_only_is_accepted_and_judges() {
        let line = "test -z \"$(git status --porcelain -uno)\" && grep -qx right result.txt";
        let Some(f) = repo(line) else { return };
        check(&f).code(0);
        // The edit hidden by `--assume-unchanged` cannot be (`.git` is read-only): FAIL.
        assert_run_exits(&f, line, 1);
        // An honest agent passes.
        let Some(f) = repo(line) else { return };
        std::fs::write(f.path("agent.sh"), "echo right > result.txt\n").unwrap();
        assert_run_exits(&f, line, 0);
    }

    #[test]
    fn rev21_10_11_14_pytest_reached_in_other_ways_gets_the_runner_warning() {
        for line in [
            "python3 -I --check-hash-based-pycs default -m pytest -q graders/test_x.py",
            "python3 -I -c 'from _pytest.config import main; raise SystemExit(main([]))'",
            "python3 -I -c 'import importlib; importlib.import_module(\"py\" \"test\").main([])'",
            "python3 -I graders/run.py",
        ] {
            let f = fixture(line, "right");
            write_files(
                &f,
                &[
                    ("graders/test_x.py", "def test_x():\n    pass\n"),
                    (
                        "graders/run.py",
                        "import sys, pytest\nsys.exit(pytest.main(['-q', 'graders/test_x.py']))\n",
                    ),
                ],
            );
            if line.contains("graders/run.py") {
                // A runner a grader file starts: read from the file's text, a warning.
                check(&f).code(0).stderr(predicates::str::contains(
                    "warning: task `agent`: `check:` runs `pytest`",
                ));
            } else {
                assert_definition_refused(&f, "runs `pytest`");
            }
        }
    }
}

/// Review 22 (issue 29): a third independent review of the check-line fixes; git and test
/// runners reached from inside the plan's own graders.
mod rev22 {
    use super::rev21::repo;
    use super::*;

    #[test]
    fn rev22_01_04_12_a_grader_of_the_plans_own_reads_a_protected_repository_however_it_runs_git() {
        let diff = "git diff --quiet -- locked.txt && grep -qx right result.txt\n";
        for (line, files, env) in [
            // 01: a helper the grader sources from a folder below its own.
            (
                "sh graders/check.sh",
                vec![
                    ("graders/check.sh", ". graders/lib/vcs.sh\n"),
                    ("graders/lib/vcs.sh", diff),
                ],
                "",
            ),
            // 04: a Python helper package.
            (
                "python3 -I graders/check.py",
                vec![
                    (
                        "graders/check.py",
                        "import sys\nsys.path.insert(0, 'graders')\nimport helpers.vcs\n",
                    ),
                    ("graders/helpers/__init__.py", ""),
                    (
                        "graders/helpers/vcs.py",
                        "import subprocess, sys\nsys.exit(subprocess.call(['sh', '-c', 'git diff --quiet -- locked.txt && grep -qx right result.txt']))\n",
                    ),
                ],
                "",
            ),
            // 12 and a name no text holds: git's name built when the grader runs.
            (
                "sh graders/check.sh",
                vec![(
                    "graders/check.sh",
                    "G=g; \"${G}it\" diff --quiet -- locked.txt && grep -qx right result.txt\n",
                )],
                "",
            ),
            (
                "sh graders/check.sh",
                vec![(
                    "graders/check.sh",
                    "\"$VCS\" diff --quiet -- locked.txt && grep -qx right result.txt\n",
                )],
                "    env: {VCS: git}\n",
            ),
        ] {
            let Some(f) = repo(line) else { return };
            write_files(&f, &files);
            std::fs::write(f.plan(), plan(env, line)).unwrap();
            check(&f).code(0);
            assert_run_exits(&f, line, 1);
        }
    }

    #[test]
    fn rev22_02_rev23_a_grader_reads_the_repository_of_the_runs_start_whatever_the_trial_makes() {
        // The task folder below the repository's top: the trial's `git init` there made a
        // repository git found first; git in a check is now pinned to the repository the
        // folder was in when the run started.
        let Some(top) = repo("true") else { return };
        let grader = "git diff --quiet -- locked.txt && grep -qx right result.txt\n";
        write_files(
            &top,
            &[
                ("task/plan.yaml", &plan("", "sh graders/check.sh")),
                ("task/graders/check.sh", grader),
                ("task/locked.txt", "v1\n"),
            ],
        );
        let git = |args: &[&str]| {
            std::process::Command::new("git")
                .args(args)
                .current_dir(top.path(""))
                .output()
                .is_ok_and(|o| o.status.success())
        };
        assert!(git(&["add", "task"]));
        assert!(git(&[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "task"
        ]));
        let made = "git init -q . && git add locked.txt && git -c user.name=t -c user.email=t@t commit -qm x";
        std::fs::write(
            top.path("task/agent.sh"),
            format!("echo right > result.txt\necho tampered > locked.txt\n{made}\ntrue\n"),
        )
        .unwrap();
        let out = gate()
            .current_dir(top.path("task"))
            .args(["run", "plan.yaml", "--no-step-summary"])
            .output()
            .unwrap();
        assert_eq!(
            out.status.code(),
            Some(1),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn rev22_09_an_interpreter_found_as_a_version_managers_shim_needs_its_version_pinned() {
        // A shim as pyenv's: it runs the version a `.python-version` in the folder names.
        let home = tempfile::tempdir().unwrap();
        let shims = home.path().join("shims");
        std::fs::create_dir(&shims).unwrap();
        let shim = shims.join("python3");
        std::fs::write(
            &shim,
            "#!/bin/sh\nexec /usr/bin/env -u PATH python3 \"$@\"\n",
        )
        .unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).unwrap();
        let line = "python3 -I graders/check.py";
        let path = format!("{}:{}", shims.display(), std::env::var("PATH").unwrap());
        let gate_check = |f: &Fixture| {
            gate()
                .current_dir(f.dir.path())
                .env("PATH", &path)
                .args(["check", "plan.yaml"])
                .output()
                .unwrap()
        };
        let f = fixture(line, "right");
        write_files(&f, &[("graders/check.py", "raise SystemExit(0)\n")]);
        let out = gate_check(&f);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains("a version manager's shim"), "{err}");
        // Pinned in the plan's `env:`, it is accepted.
        std::fs::write(f.plan(), plan("    env: {PYENV_VERSION: system}\n", line)).unwrap();
        let out = gate_check(&f);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    #[test]
    fn rev22_06_07_10_a_runner_started_by_a_grader_file_gets_the_runner_warning() {
        for (line, file, text, runner) in [
            (
                "sh graders/check.sh",
                "graders/check.sh",
                "python3 -m pytest -q graders/test_x.py\n",
                "pytest",
            ),
            (
                "python3 -I graders/run",
                "graders/run",
                "import sys, pytest\nsys.exit(pytest.main([]))\n",
                "pytest",
            ),
            (
                "sh graders/check.sh",
                "graders/check.sh",
                "npm test --silent\n",
                "npm",
            ),
            // Review 23, 07 and 08.
            (
                "sh graders/check.sh",
                "graders/check.sh",
                "python3 -m unittest discover -s graders\n",
                "unittest",
            ),
            (
                "sh graders/check.sh",
                "graders/check.sh",
                "prove graders/t\n",
                "prove",
            ),
        ] {
            let f = fixture(line, "right");
            write_files(&f, &[(file, text)]);
            check(&f).code(0).stderr(predicates::str::contains(format!(
                "warning: task `agent`: `check:` runs `{runner}` (from `"
            )));
        }
    }
}

/// Review 24 (issue 29): a short independent review of git's pinning.
mod rev24 {
    use super::*;

    #[test]
    fn rev24_02_a_trials_gitattributes_does_not_change_what_git_diff_sees() {
        let line = "sh graders/check.sh";
        let files = [
            ("src/run.sh", "echo hello\n"),
            (".gitignore", "gate-out/\nout/\n"),
        ];
        let Some(f) = committed_repo(line, "right", &files) else {
            return;
        };
        write_files(
            &f,
            &[(
                "graders/check.sh",
                "git diff --quiet -- src && grep -qx right result.txt\n",
            )],
        );
        // The agent breaks the script with CRLF and tells git, in the work tree, to read
        // line endings as text: `git diff` would see no change.
        std::fs::write(
            f.path("agent.sh"),
            "echo right > result.txt\nprintf 'echo hello\\r\\n' > src/run.sh\necho '* text' > .gitattributes\n",
        )
        .unwrap();
        check(&f).code(0);
        assert_run_exits(&f, line, 1);
    }

    #[test]
    fn rev24_03_a_git_folder_reached_through_a_link_is_held_read_only() {
        let line = "sh graders/check.sh";
        let Some(f) = super::rev21::repo(line) else {
            return;
        };
        std::fs::rename(f.path(".git"), f.path(".gitdir")).unwrap();
        std::os::unix::fs::symlink(".gitdir", f.path(".git")).unwrap();
        write_files(
            &f,
            &[(
                "graders/check.sh",
                "git diff --quiet -- locked.txt && grep -qx right result.txt\n",
            )],
        );
        check(&f).code(0);
        assert_run_exits(&f, line, 1);
    }
}

/// Review 22, 14 (left open until now) and review 23, 10: what a grader loads from the task's
/// folder by a name, not a path.
mod rev22_open {
    use super::*;
    use predicates::prelude::*;

    /// A node grader requiring `yaml-lite`, installed in the task's `node_modules`.
    fn node_grader(agent: &str) -> Option<Fixture> {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return None;
        }
        let f = fixture("node graders/check.js", "right");
        write_files(
            &f,
            &[
                (
                    "node_modules/yaml-lite/index.js",
                    "module.exports = { answer: (s) => s.trim() };\n",
                ),
                (
                    "node_modules/yaml-lite/package.json",
                    "{\"name\":\"yaml-lite\",\"version\":\"1.0.0\",\"main\":\"index.js\"}\n",
                ),
                (
                    "graders/check.js",
                    "const fs = require(\"fs\"); const y = require(\"yaml-lite\");\n\
                     process.exit(y.answer(fs.readFileSync(\"result.txt\", \"utf8\")) === \"right\" ? 0 : 1);\n",
                ),
                ("graders/package.json", "{}\n"),
                ("agent.sh", agent),
            ],
        );
        Some(f)
    }

    #[test]
    fn rev22_14_a_package_a_node_grader_finds_in_the_task_folder_is_held_read_only() {
        // The control: the honest grader FAILs a wrong answer and PASSes a right one.
        let Some(f) = node_grader("echo wrong > result.txt\n") else {
            return;
        };
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
        let Some(f) = node_grader("echo right > result.txt\n") else {
            return;
        };
        assert_run_exits(&f, "honest", 0);
        // The attack: the trial rewrites the package the grader loads to exit 0.
        let Some(f) = node_grader(
            "echo wrong > result.txt\necho 'process.exit(0)' > node_modules/yaml-lite/index.js 2>/dev/null\ntrue\n",
        ) else {
            return;
        };
        check(&f).code(0);
        assert_run_exits(&f, "attack", 1);
        // Or adds a package of that name nearer to the grader than the real one: a grader
        // below a folder the trials write, which has no `node_modules`, is refused.
        let Some(f) = node_grader("echo wrong > result.txt\n") else {
            return;
        };
        std::fs::create_dir_all(f.path("tests/graders")).unwrap();
        std::fs::rename(f.path("graders/check.js"), f.path("tests/graders/check.js")).unwrap();
        let plan = std::fs::read_to_string(f.path("plan.yaml")).unwrap();
        std::fs::write(
            f.path("plan.yaml"),
            plan.replace("node graders/check.js", "node tests/graders/check.js"),
        )
        .unwrap();
        check(&f).code(2).stderr(predicates::str::contains(
            "`require(\"yaml-lite\")`, a package node looks for first in",
        ));
    }

    #[test]
    fn rev23_10_make_started_by_a_grader_file_gets_the_runner_warning() {
        let f = fixture("sh graders/check.sh", "right");
        write_files(
            &f,
            &[
                ("graders/check.sh", "make -s -f graders/rules.mk check\n"),
                (
                    "graders/rules.mk",
                    "include config.mk\ncheck:\n\t@test \"$(WANT)\" = right\n",
                ),
                ("config.mk", "WANT = right\n"),
            ],
        );
        check(&f).code(0).stderr(predicates::str::contains(
            "warning: task `agent`: `check:` runs `make` (from `",
        ));
        // A comment that says "make" is not a run of it.
        let f = fixture("sh graders/check.sh", "right");
        write_files(
            &f,
            &[(
                "graders/check.sh",
                "# make sure the answer is right\ngrep -qx right result.txt\n",
            )],
        );
        check(&f)
            .code(0)
            .stderr(predicates::str::contains("warning:").not());
    }
}

/// Review 25 (issue 29): an independent review of the check-line walls after review 24.
mod rev25 {
    use super::*;
    use predicates::prelude::*;
    use std::os::unix::fs::PermissionsExt;

    fn executable(path: &std::path::Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    /// 01, 10, 20: a pyenv-like manager (outside the task's folder) whose shim `python` runs
    /// the version `PYENV_VERSION`, else the nearest `.python-version`, else the global
    /// `version` file names: `good` is Python, `evil` exits 0 whatever it is asked.
    #[test]
    fn rev25_01_10_20_a_version_managers_shim_runs_the_version_named_when_the_run_started() {
        if !has("python3") {
            skip_or_fail(&current_test(), "python3", "no python3 here");
            return;
        }
        let root = tempfile::tempdir().unwrap();
        let r = root.path();
        executable(
            &r.join("shims/python"),
            "#!/bin/sh\n# a shim as pyenv's: exec pyenv exec\nv=\"$PYENV_VERSION\"\n\
             d=$PWD\nwhile [ -z \"$v\" ] && [ \"$d\" != / ]; do\n  [ -f \"$d/.python-version\" ] && v=$(cat \"$d/.python-version\")\n  d=$(dirname \"$d\")\ndone\n\
             [ -z \"$v\" ] && v=$(cat \"$PYENV_ROOT/version\")\nexec \"$PYENV_ROOT/versions/$v/bin/python\" \"$@\"\n",
        );
        executable(
            &r.join("versions/good/bin/python"),
            "#!/bin/sh\nexec python3 \"$@\"\n",
        );
        executable(&r.join("versions/evil/bin/python"), "#!/bin/sh\nexit 0\n");
        std::fs::write(r.join("version"), "good\n").unwrap();
        let path = format!(
            "{}:{}",
            r.join("shims").display(),
            std::env::var("PATH").unwrap()
        );
        for (line, grader, text) in [
            // 01: a grader script's `python`.
            (
                "sh graders/check.sh",
                "graders/check.sh",
                "python graders/check.py\n".to_string(),
            ),
            // 10: the shim by its full path.
            (
                "sh graders/check.sh",
                "graders/check.sh",
                format!("{} graders/check.py\n", r.join("shims/python").display()),
            ),
            // 20: an executable grader whose shebang runs `python` through `env`.
            (
                "graders/check.py",
                "graders/check.py",
                "#!/usr/bin/env python\nimport sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n"
                    .to_string(),
            ),
        ] {
            for (agent, want) in [
                ("echo right > result.txt\n", 0),
                ("echo wrong > result.txt\n", 1),
                ("echo wrong > result.txt\necho evil > .python-version\n", 1),
            ] {
                let f = fixture(line, "right");
                write_files(
                    &f,
                    &[
                        (
                            "graders/check.py",
                            "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
                        ),
                        (grader, &text),
                        ("agent.sh", agent),
                    ],
                );
                if grader.ends_with(".py") {
                    std::fs::set_permissions(
                        f.path(grader),
                        std::fs::Permissions::from_mode(0o755),
                    )
                    .unwrap();
                }
                let out = f
                    .std_command(&[])
                    .env("PATH", &path)
                    .env("PYENV_ROOT", r)
                    .env_remove("PYENV_VERSION")
                    .output()
                    .unwrap();
                assert_eq!(
                    out.status.code(),
                    Some(want),
                    "`{line}` with `{text}`, agent `{agent}`:\n{}",
                    String::from_utf8_lossy(&out.stderr)
                );
            }
        }
    }

    /// 12: the graders' folder is a link in the task's folder to a folder outside it.
    #[test]
    fn rev25_12_a_grader_reached_through_a_folder_link_the_trials_could_swap_is_refused() {
        let shared = tempfile::tempdir().unwrap();
        std::fs::write(
            shared.path().join("check.sh"),
            "grep -qx right result.txt\n",
        )
        .unwrap();
        for line in ["sh graders/check.sh", "cd graders && sh check.sh"] {
            let f = fixture(line, "wrong");
            std::fs::remove_dir_all(f.path("graders")).unwrap();
            std::os::unix::fs::symlink(shared.path(), f.path("graders")).unwrap();
            check(&f).code(2).stderr(predicate::str::contains(
                "named through a link in a folder the trials write",
            ));
        }
    }

    /// 05, 21: variables that move Python's standard library or give make options.
    #[test]
    fn rev25_05_21_pythonplatlibdir_and_make_options_in_the_environment_are_refused() {
        for (env, name) in [
            ("    env: {PYTHONPLATLIBDIR: lib}\n", "PYTHONPLATLIBDIR"),
            (
                "    env: {MAKEFLAGS: \"--eval=-include x.mk\"}\n",
                "MAKEFLAGS",
            ),
            ("    env: {GNUMAKEFLAGS: \"-B\"}\n", "GNUMAKEFLAGS"),
        ] {
            let f = fixture("sh graders/grade", "right");
            std::fs::write(f.plan(), plan(env, "sh graders/grade")).unwrap();
            check(&f).code(2).stderr(predicate::str::contains(name));
        }
    }

    /// 07: `python3 -m json.tool` in a grader script (the folder it runs in first on
    /// `sys.path`) gets the runner warning; `-I` leaves the folder out and gets none.
    #[test]
    fn rev25_07_python_dash_m_started_by_a_grader_file_gets_the_runner_warning() {
        for (text, warned) in [
            ("python3 -m json.tool result.json > /dev/null\n", true),
            ("python3 -mjson.tool result.json > /dev/null\n", true),
            ("python3 -I -m json.tool result.json > /dev/null\n", false),
            ("python3 -Im json.tool result.json > /dev/null\n", false),
        ] {
            let f = fixture("sh graders/check.sh", "right");
            write_files(&f, &[("graders/check.sh", text)]);
            let warning = predicate::str::contains(
                "warning: task `agent`: `check:` runs `python -m` (from `",
            );
            if warned {
                check(&f).code(0).stderr(warning);
            } else {
                check(&f).code(0).stderr(warning.not());
            }
        }
    }

    /// 03: a repository that records a repository inside it (a gitlink).
    #[test]
    fn rev25_03_a_repository_recording_a_nested_repository_is_refused() {
        let line = "sh graders/check.sh";
        let files = [("locked.txt", "v1\n"), (".gitignore", "gate-out/\nout/\n")];
        let Some(f) = committed_repo(line, "right", &files) else {
            return;
        };
        write_files(
            &f,
            &[(
                "graders/check.sh",
                "git diff --quiet && grep -qx right result.txt\n",
            )],
        );
        check(&f).code(0);
        let git = |dir: &std::path::Path, args: &[&str]| {
            let ok = std::process::Command::new("git")
                .args(["-c", "user.name=t", "-c", "user.email=t@t"])
                .args(args)
                .current_dir(dir)
                .env("GIT_CONFIG_NOSYSTEM", "1")
                .output()
                .unwrap()
                .status
                .success();
            assert!(ok, "git {args:?}");
        };
        let inner = f.path("vendor/lib");
        std::fs::create_dir_all(&inner).unwrap();
        std::fs::write(inner.join("lib.sh"), "echo lib\n").unwrap();
        git(&inner, &["init", "-q"]);
        git(&inner, &["add", "lib.sh"]);
        git(&inner, &["commit", "-qm", "lib"]);
        git(f.dir.path(), &["add", "vendor/lib"]);
        git(f.dir.path(), &["commit", "-qm", "vendor"]);
        check(&f).code(2).stderr(predicate::str::contains(
            "records a repository inside it (`vendor/lib`",
        ));
        // An index gate cannot read is said to be one, not taken for a nested repository.
        std::fs::write(f.path(".git/index"), b"DIRX not an index").unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("gate cannot read to see whether"));
    }

    /// 23 (an over-refusal): a task folder that is a worktree of a repository outside it.
    #[test]
    fn rev25_23_a_worktree_is_accepted_and_its_git_reads_the_repository_of_the_runs_start() {
        let line = "git diff --quiet -- locked.txt && sh graders/check.sh";
        let files = [("locked.txt", "v1\n"), (".gitignore", "gate-out/\nout/\n")];
        let Some(main) = committed_repo(line, "right", &files) else {
            return;
        };
        write_files(
            &main,
            &[("graders/check.sh", "grep -qx right result.txt\n")],
        );
        let status = std::process::Command::new("git")
            .args(["add", "-A"])
            .current_dir(main.dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let status = std::process::Command::new("git")
            .args([
                "-c",
                "user.name=t",
                "-c",
                "user.email=t@t",
                "commit",
                "-qam",
                "g",
            ])
            .current_dir(main.dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        let outer = tempfile::tempdir().unwrap();
        let wt = outer.path().join("wt");
        let status = std::process::Command::new("git")
            .args(["worktree", "add", "-q"])
            .arg(&wt)
            .current_dir(main.dir.path())
            .status()
            .unwrap();
        assert!(status.success());
        for (agent, want) in [
            ("echo right > result.txt\n", 0),
            (
                "echo right > result.txt\necho tampered > locked.txt\ngit update-index --assume-unchanged locked.txt\n",
                1,
            ),
        ] {
            std::fs::write(wt.join("agent.sh"), agent).unwrap();
            gate()
                .current_dir(&wt)
                .args(["check", "plan.yaml"])
                .assert()
                .code(0);
            let out = gate()
                .current_dir(&wt)
                .args(["run", "plan.yaml", "--no-step-summary"])
                .output()
                .unwrap();
            assert_eq!(
                out.status.code(),
                Some(want),
                "agent `{agent}`:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let _ = std::fs::remove_dir_all(wt.join("gate-out"));
        }
    }
}

/// Review 26 (issue 29): an independent review of review 25's walls.
mod rev26 {
    use super::*;
    use predicates::prelude::*;

    /// A node grader requiring `eq` from the task's `node_modules`; `files` added.
    pub(super) fn eq_grader(files: &[(&str, &str)]) -> Option<Fixture> {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return None;
        }
        let f = fixture("node graders/check.js", "right");
        write_files(
            &f,
            &[
                (
                    "graders/check.js",
                    "const eq = require(\"eq\");\nconst got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n",
                ),
                (
                    "node_modules/eq/index.js",
                    "module.exports = (a, b) => a === b;\n",
                ),
            ],
        );
        write_files(&f, files);
        Some(f)
    }

    #[test]
    fn rev26_01_15_a_package_json_the_trials_write_above_a_node_grader_is_refused() {
        // No `package.json` beside the grader: a trial's `./package.json` named `eq` with
        // `exports` would be the package node loads.
        let Some(f) = eq_grader(&[]) else { return };
        check(&f).code(2).stderr(predicate::str::contains(
            "put a `package.json` (`{}` will do) beside the grader",
        ));
        // With one, the trial's is never read: the wrong answer FAILs.
        let Some(f) = eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "agent.sh",
                "echo wrong > result.txt\nprintf '{\"name\":\"eq\",\"exports\":\"./yes.js\"}' > package.json\necho 'module.exports = () => true;' > yes.js\n",
            ),
        ]) else {
            return;
        };
        check(&f).code(0);
        super::rev34::self_reference_attack_fails(&f);
    }

    #[test]
    fn rev26_03_04_a_package_whose_files_lie_where_the_trials_write_is_refused() {
        // 04: the package's `main` leads out of `node_modules` into the task's folder.
        let Some(f) = eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "node_modules/eq/package.json",
                "{\"name\":\"eq\",\"main\":\"../../lib/eq.js\"}\n",
            ),
            ("lib/eq.js", "module.exports = (a, b) => a === b;\n"),
        ]) else {
            return;
        };
        check(&f).code(2).stderr(predicate::str::contains(
            "a package whose files node loads from",
        ));
        // 03: a workspace link into the task's folder.
        let Some(f) = eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "packages/eq/index.js",
                "module.exports = (a, b) => a === b;\n",
            ),
        ]) else {
            return;
        };
        std::fs::remove_dir_all(f.path("node_modules/eq")).unwrap();
        std::os::unix::fs::symlink("../packages/eq", f.path("node_modules/eq")).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "a package whose files node loads from",
        ));
    }

    #[test]
    fn rev26_10c_19_a_path_entry_through_a_link_in_the_trials_folder_is_refused() {
        let shared = tempfile::tempdir().unwrap();
        std::fs::write(
            shared.path().join("grade"),
            "#!/bin/sh\ngrep -qx right result.txt\n",
        )
        .unwrap();
        for entry in ["tools", "x/../tools"] {
            let f = fixture("grade", "wrong");
            std::fs::create_dir_all(f.path("x")).unwrap();
            std::os::unix::fs::symlink(shared.path(), f.path("tools")).unwrap();
            let env = format!(
                "    env: {{PATH: \"{}:/usr/bin:/bin\"}}\n",
                f.path(entry).display()
            );
            std::fs::write(f.plan(), plan(&env, "grade")).unwrap();
            check(&f)
                .code(2)
                .stderr(predicate::str::contains("reached through a link"));
        }
    }

    #[test]
    fn rev26_12_13_python_dash_m_and_make_by_other_spellings_get_the_runner_warning() {
        for (text, runner) in [
            ("python3 -W ignore -m json.tool r.json\n", "python -m"),
            ("python3 -X dev -m json.tool r.json\n", "python -m"),
            ("python3 -c 'import json'\n", "python -m"),
            (
                "import subprocess, sys\nsubprocess.run([sys.executable, \"-m\", \"json.tool\"])\n",
                "python -m",
            ),
            ("$PY -m json.tool r.json\n", "python -m"),
            ("exec make -s verify\n", "make"),
            ("\\make verify\n", "make"),
            ("${MAKE:-make} verify\n", "make"),
            ("/usr/bin/make verify\n", "make"),
            ("import os\nos.system(\"make verify\")\n", "make"),
        ] {
            let f = fixture("sh graders/check.sh", "right");
            write_files(&f, &[("graders/check.sh", text)]);
            check(&f).code(0).stderr(predicate::str::contains(format!(
                "warning: task `agent`: `check:` runs `{runner}` (from `"
            )));
        }
    }
}

/// Review 27 (issue 29): an independent review of review 26's walls.
mod rev27 {
    use super::*;
    use predicates::prelude::*;

    /// [`super::rev26::eq_grader`] with the grader's own `package.json` and a wrong answer;
    /// `files` added, then `links` made (`(link, target)`).
    fn eq_grader(files: &[(&str, &str)], links: &[(&str, &str)]) -> Option<Fixture> {
        let f = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            ("agent.sh", "echo wrong > result.txt\n"),
        ])?;
        write_files(&f, files);
        for (link, target) in links {
            std::fs::create_dir_all(f.path(link).parent().unwrap()).unwrap();
            let _ = std::fs::remove_file(f.path(link));
            std::os::unix::fs::symlink(target, f.path(link)).unwrap();
        }
        Some(f)
    }

    #[test]
    fn rev27_02_03_a_link_in_a_node_modules_out_to_the_trials_folder_is_refused() {
        // 02a: the package's `index.js` is a link to a file the trials write.
        let Some(f) = eq_grader(
            &[("lib/eq.js", "module.exports = (a, b) => a === b;\n")],
            &[("node_modules/eq/index.js", "../../lib/eq.js")],
        ) else {
            return;
        };
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("with a link"));
        // 03a: its dependency is a workspace link into the task's folder.
        let Some(f) = eq_grader(
            &[
                (
                    "node_modules/eq/index.js",
                    "module.exports = require(\"dep\");\n",
                ),
                (
                    "packages/dep/index.js",
                    "module.exports = (a, b) => a === b;\n",
                ),
            ],
            &[("node_modules/dep", "../packages/dep")],
        ) else {
            return;
        };
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("with a link"));
        // The control: the same packages as plain files are accepted.
        let Some(f) = eq_grader(
            &[(
                "node_modules/eq/index.js",
                "module.exports = (a, b) => a === b;\n",
            )],
            &[],
        ) else {
            return;
        };
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
    }

    #[test]
    fn rev27_03g_create_require_of_a_folder_of_the_codes_choosing_is_refused() {
        let Some(f) = eq_grader(
            &[
                (
                    "node_modules/eq/index.js",
                    "module.exports = (a, b) => a === b;\n",
                ),
                (
                    "graders/check.js",
                    "const r = require(\"module\").createRequire(process.cwd() + \"/\");\nprocess.exit(r(\"eq\")(\"a\", \"a\") ? 0 : 1);\n",
                ),
            ],
            &[],
        ) else {
            return;
        };
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("`createRequire` of anything but"));
    }

    #[test]
    fn rev27_06_python_on_stdin_or_through_variables_gets_the_runner_warning() {
        for text in [
            "python3 - <<'PY'\nimport json.tool\nPY\n",
            "python3 < graders/grade.py\n",
            "INTERP=python3; $INTERP -m json.tool r.json\n",
            "python3 --check-hash-based-pycs never -m json.tool r.json\n",
            "ARGS='-m json.tool'; python3 $ARGS r.json\n",
        ] {
            let f = fixture("sh graders/check.sh", "right");
            write_files(&f, &[("graders/check.sh", text)]);
            check(&f).code(0).stderr(predicate::str::contains(
                "warning: task `agent`: `check:` runs `python -m` (from `",
            ));
        }
    }
}

/// Review 28 (issue 29): a short independent review of review 27's walls.
mod rev28 {
    use super::*;
    use predicates::prelude::*;

    /// 04a: `eq` in the grader's own `node_modules` requires `dep`, which resolves up the walk
    /// to the task's `node_modules`, where `dep` is a workspace link into the task's folder.
    #[test]
    fn rev28_04a_a_link_in_any_node_modules_on_the_walk_is_refused() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "graders/node_modules/eq/index.js",
                "module.exports = require(\"dep\");\n",
            ),
            (
                "packages/dep/index.js",
                "module.exports = (a, b) => a === b;\n",
            ),
        ]) else {
            return;
        };
        std::fs::remove_dir_all(f.path("node_modules/eq")).unwrap();
        std::os::unix::fs::symlink("../packages/dep", f.path("node_modules/dep")).unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("with a link"));
    }
}

/// A folder holding a `git` that says it is git `version` and runs the real git for
/// everything else (the git-version rule of reviews 25, 30, 31 and 32).
fn fake_git(version: &str) -> tempfile::TempDir {
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v git"])
        .output()
        .unwrap();
    let real = String::from_utf8(real.stdout).unwrap().trim().to_string();
    let bin = tempfile::tempdir().unwrap();
    let git = bin.path().join("git");
    std::fs::write(
        &git,
        format!(
            "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'git version {version}'; exit 0; fi\nexec {real} \"$@\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&git, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    bin
}

/// The run of `f` ends with exit `code`, saying `why` on stderr.
fn run_ends(f: &Fixture, code: i32, why: &str) {
    let out = f.command(&[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "{stderr}");
    assert!(stderr.contains(why), "{stderr}");
}

/// Breaks reviews 26 to 28 left open, closed in round 4's tenth session: files node loads
/// that a trial could still shape without writing a held name.
mod rev28_open {
    use super::*;
    use predicates::prelude::*;

    /// 01a: the package file node loads (`node_modules/eq/index.js`) is a hard link to the
    /// task's `lib/eq.js`: the read-only hold covers the name, not the inode, and the trial
    /// rewrites it through `lib/eq.js`. The `node_modules` is now fingerprinted: no verdict.
    #[test]
    fn rev28_01a_a_package_file_hard_linked_to_a_file_the_trials_write_publishes_no_verdict() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            ("lib/eq.js", "module.exports = (a, b) => a === b;\n"),
            ("agent.sh", "echo wrong > result.txt\n"),
        ]) else {
            return;
        };
        std::fs::remove_file(f.path("node_modules/eq/index.js")).unwrap();
        std::fs::hard_link(f.path("lib/eq.js"), f.path("node_modules/eq/index.js")).unwrap();
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\necho 'module.exports = () => true;' > lib/eq.js\n",
            )],
        );
        run_ends(&f, 4, "changed during the run");
    }

    /// 14 (review 26): a package in the grader's own `node_modules` tries an optional
    /// `require("eq-native")`; node looks for it next in the task folder's `node_modules`,
    /// which a trial creates. Each check now looks first: no check runs, no verdict.
    #[test]
    fn rev26_14_a_node_modules_a_trial_creates_where_node_looks_next_stops_the_check() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "graders/node_modules/eq/index.js",
                "let native;\ntry { native = require(\"eq-native\"); } catch (e) {}\nmodule.exports = native || ((a, b) => a === b);\n",
            ),
            ("agent.sh", "echo wrong > result.txt\n"),
        ]) else {
            return;
        };
        std::fs::remove_dir_all(f.path("node_modules")).unwrap();
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
        write_files(&f, &[("agent.sh", "echo right > result.txt\n")]);
        assert_run_exits(&f, "honest", 0);
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\nmkdir -p node_modules/eq-native\necho 'module.exports = () => true;' > node_modules/eq-native/index.js\n",
            )],
        );
        run_ends(&f, 4, "changed during the run (it appeared");
    }

    /// 06e (review 28) and 05 (review 26): a grader script that puts the check's folder on
    /// Python's path, or clears the environment holding gate's pins, is now warned about;
    /// one that adds its own folder is not.
    #[test]
    fn rev28_06e_rev26_05_a_grader_script_moving_the_search_path_or_dropping_the_pins_is_warned() {
        for (script, warned) in [
            (
                "PYTHONPATH=. python3 graders/grade.py\n",
                Some("`PYTHONPATH`"),
            ),
            (
                "env -i PATH=\"$PATH\" python3 graders/grade.py\n",
                Some("dropping the pins"),
            ),
            (
                "PYTHONPATH=\"$(dirname \"$0\")\" python3 graders/grade.py\n",
                None,
            ),
        ] {
            let f = fixture("sh graders/check.sh", "right");
            write_files(
                &f,
                &[
                    ("graders/check.sh", script),
                    (
                        "graders/grade.py",
                        "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
                    ),
                ],
            );
            let out = gate()
                .current_dir(f.dir.path())
                .args(["check", "plan.yaml"])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(0), "{script}: {stderr}");
            match warned {
                Some(w) => assert!(
                    stderr.contains(w) && stderr.contains("warning:"),
                    "{script}: {stderr}"
                ),
                None => assert!(!stderr.contains("search path"), "{script}: {stderr}"),
            }
        }
    }

    /// 09 (review 25): git before 2.40 ignores `GIT_ATTR_SOURCE`, so the attribute pin does
    /// not hold: a check that runs such a git in a repository with a commit is refused at
    /// load, naming it; git 2.40 is accepted.
    #[test]
    fn rev25_09_a_check_running_a_git_older_than_2_40_is_refused() {
        let Some(f) = committed_repo(
            "git diff --quiet",
            "right",
            &[("deploy.sh", "echo deploy\n")],
        ) else {
            return;
        };
        for (version, refused) in [("2.39.5", true), ("2.40.0", false)] {
            let bin = fake_git(version);
            let path = format!("{}:/usr/local/bin:/usr/bin:/bin", bin.path().display());
            std::fs::write(
                f.path("plan.yaml"),
                plan(
                    &format!(
                        "    env: {{PATH: {}}}\n",
                        serde_json::to_string(&path).unwrap()
                    ),
                    "git diff --quiet",
                ),
            )
            .unwrap();
            let out = gate()
                .current_dir(f.dir.path())
                .args(["check", "plan.yaml"])
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            if refused {
                assert_eq!(out.status.code(), Some(2), "{stderr}");
                assert!(
                    stderr.contains(&format!("is git version {version}, older than 2.40")),
                    "{stderr}"
                );
            } else {
                assert_eq!(out.status.code(), Some(0), "{version}: {stderr}");
            }
        }
    }

    /// 09b (review 27): a grader in `graders/sub/` loads `../node_modules/eq` by a relative
    /// name, and that package's `index.js` is a link into the task's folder. A link out of
    /// the graders' own `node_modules` is refused at load; the same file copied in is not.
    #[test]
    fn rev27_09b_a_link_out_of_the_graders_own_node_modules_is_refused() {
        let grader = "const eq = require(\"../node_modules/eq\");\nconst got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n";
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            ("graders/sub/check.js", grader),
            ("lib/eq.js", "module.exports = (a, b) => a === b;\n"),
        ]) else {
            return;
        };
        std::fs::write(f.path("plan.yaml"), plan("", "node graders/sub/check.js")).unwrap();
        std::fs::remove_dir_all(f.path("node_modules")).unwrap();
        std::fs::create_dir_all(f.path("graders/node_modules/eq")).unwrap();
        std::os::unix::fs::symlink(
            "../../../lib/eq.js",
            f.path("graders/node_modules/eq/index.js"),
        )
        .unwrap();
        check(&f).code(2).stderr(
            predicate::str::contains("is a link to").and(predicate::str::contains("lib/eq.js")),
        );
        std::fs::remove_file(f.path("graders/node_modules/eq/index.js")).unwrap();
        std::fs::copy(
            f.path("lib/eq.js"),
            f.path("graders/node_modules/eq/index.js"),
        )
        .unwrap();
        check(&f).code(0);
        write_files(&f, &[("agent.sh", "echo wrong > result.txt\n")]);
        assert_run_exits(&f, "honest line, wrong answer", 1);
    }
}

/// Review 29 (an independent attack on the walls above: 57 cases, 23 broke): the breaks of
/// the new walls, each failing on the binary it was found on.
mod rev29 {
    use super::*;
    use predicates::prelude::*;

    /// 01d, 01e: the task's `node_modules` is a link (to a shared cache outside, or to a
    /// folder inside); the trial replaces the link with a folder of its own. The link is
    /// watched as written: the check does not run.
    #[test]
    fn rev29_01d_01e_a_node_modules_link_the_trial_replaces_stops_the_check() {
        for inside in [false, true] {
            let Some(f) = super::rev26::eq_grader(&[
                ("graders/package.json", "{}\n"),
                ("agent.sh", "echo wrong > result.txt\n"),
            ]) else {
                return;
            };
            let shared = tempfile::tempdir().unwrap();
            let to = if inside {
                f.path("vendor/nm")
            } else {
                shared.path().join("node_modules")
            };
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::rename(f.path("node_modules"), &to).unwrap();
            std::os::unix::fs::symlink(&to, f.path("node_modules")).unwrap();
            check(&f).code(0);
            assert_run_exits(&f, "control", 1);
            write_files(
                &f,
                &[(
                    "agent.sh",
                    "echo wrong > result.txt\nrm node_modules\nmkdir -p node_modules/eq\necho 'module.exports = () => true;' > node_modules/eq/index.js\n",
                )],
            );
            run_ends(
                &f,
                4,
                "changed during the run (it appeared, went, or was re-pointed)",
            );
        }
    }

    /// 01a: a package file requires `../.cache/impl.js`, a hard link to a file the trials
    /// write. With the box on, `.cache` is fingerprinted too.
    #[test]
    fn rev29_01a_a_hard_link_under_node_modules_cache_publishes_no_verdict() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "node_modules/eq/index.js",
                "module.exports = require(\"../.cache/impl.js\");\n",
            ),
            ("lib/eq.js", "module.exports = (a, b) => a === b;\n"),
            ("agent.sh", "echo wrong > result.txt\n"),
        ]) else {
            return;
        };
        std::fs::create_dir_all(f.path("node_modules/.cache")).unwrap();
        std::fs::hard_link(f.path("lib/eq.js"), f.path("node_modules/.cache/impl.js")).unwrap();
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\necho 'module.exports = () => true;' > lib/eq.js\n",
            )],
        );
        run_ends(&f, 4, "changed during the run");
    }

    /// Review 25, 16: the check shared the trial's `TMPDIR`; the trial left the name a
    /// grader writes its scratch file to as a link to the expected answer, so the grader's
    /// write failed (read-only) and it compared the answer with itself. Since review 46 the
    /// check has a `TMPDIR` of its own: the link is not there, the wrong answer FAILs.
    #[test]
    fn rev25_16_a_link_the_trial_leaves_in_its_tmpdir_does_not_reach_the_check() {
        let f = fixture("sh graders/check.sh", "wrong");
        write_files(
            &f,
            &[
                (
                    "graders/check.sh",
                    "sort result.txt > \"$TMPDIR/sorted.txt\"\ncmp -s \"$TMPDIR/sorted.txt\" graders/expected.txt\n",
                ),
                ("graders/expected.txt", "right\n"),
            ],
        );
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
        write_files(&f, &[("agent.sh", "echo right > result.txt\n")]);
        assert_run_exits(&f, "honest", 0);
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\nln -s \"$PWD/graders/expected.txt\" \"$TMPDIR/sorted.txt\"\n",
            )],
        );
        assert_run_exits(&f, "attack", 1);
    }

    /// 05c: a dangling link in the graders' own `node_modules` whose target, in the task's
    /// folder, a trial creates. Read as written, it is refused at load.
    #[test]
    fn rev29_05c_a_dangling_link_out_of_a_held_folder_is_refused() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "graders/node_modules/eq/index.js",
                "let impl;\ntry { impl = require(\"./impl\"); } catch (e) {}\nmodule.exports = impl || ((a, b) => a === b);\n",
            ),
        ]) else {
            return;
        };
        std::fs::remove_dir_all(f.path("node_modules")).unwrap();
        std::os::unix::fs::symlink(
            "../../../lib/eqimpl.js",
            f.path("graders/node_modules/eq/impl.js"),
        )
        .unwrap();
        check(&f).code(2).stderr(
            predicate::str::contains("link").and(predicate::str::contains("lib/eqimpl.js")),
        );
    }
}

/// Review 29, 01c: a `node_modules` a node grader reads, too large to fingerprint (more than
/// 200,000 entries), once gave the same constant at both ends of the run, so a change in it
/// went unseen. Such a folder is now refused before any trial: at load, where the grader's
/// `require` reads it for links (exit 2), or when the run starts (exit 4).
#[test]
fn rev29_01c_a_node_modules_too_large_to_fingerprint_is_refused_before_any_trial() {
    let Some(f) = rev26::eq_grader(&[("graders/package.json", "{}\n")]) else {
        return;
    };
    let big = f.path("node_modules/big");
    std::fs::create_dir_all(&big).unwrap();
    for k in 0..200_001 {
        std::fs::File::create(big.join(k.to_string())).unwrap();
    }
    let out = f.command(&[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(matches!(out.status.code(), Some(2 | 4)), "{stderr}");
    assert!(stderr.contains("more than 200000 entries"), "{stderr}");
    assert!(!f.path("out/ledger.jsonl").exists(), "{stderr}");
}

/// Review 30 (an independent attack on review 29's walls: 55 new cases, 37 broke, one
/// over-refusal): its breaks, each failing on c37ea75.
mod rev30 {
    use super::*;
    use predicates::prelude::*;

    /// 10b, 11 (review 30), 20a (review 31): the check shared the trial's `TMPDIR`. A
    /// grader writes two scratch files there and compares them; the trial left both as links
    /// to `/dev/null`, one a hard link of the other, or a link to the expected answer hidden
    /// among 20,000 entries. Since review 46 the check has a `TMPDIR` of its own, fresh and
    /// empty: each wrong answer FAILs, and honest agents' links (a virtual environment's, a
    /// lock's: review 31, 21b, 21e, 21g) are theirs.
    #[test]
    fn rev30_10_11_a_tmpdir_the_trial_prepared_does_not_reach_the_check() {
        let f = fixture("sh graders/check.sh", "wrong");
        write_files(
            &f,
            &[
                (
                    "graders/check.sh",
                    "sort result.txt > \"$TMPDIR/got.txt\"\nsort graders/expected.txt > \"$TMPDIR/want.txt\"\ncmp -s \"$TMPDIR/got.txt\" \"$TMPDIR/want.txt\"\n",
                ),
                ("graders/expected.txt", "right\n"),
            ],
        );
        // Nothing to warn about: the check's `TMPDIR` is its own.
        check(&f)
            .code(0)
            .stderr(predicate::str::contains("TMPDIR").not());
        assert_run_exits(&f, "control", 1);
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo right > result.txt\nmkdir -p \"$TMPDIR/bin\" && ln -s /usr/bin/env \"$TMPDIR/bin/python\"\nln -s 12345@host \"$TMPDIR/.lock\"\nln -s /usr/bin/env \"$TMPDIR/tool\"\n",
            )],
        );
        assert_run_exits(&f, "honest", 0);
        for trick in [
            "ln -s /dev/null \"$TMPDIR/got.txt\" && ln -s /dev/null \"$TMPDIR/want.txt\"",
            "echo right > \"$TMPDIR/want.txt\" && ln \"$TMPDIR/want.txt\" \"$TMPDIR/got.txt\"",
            "(cd \"$TMPDIR\" && seq 20000 | xargs touch) && ln -s \"$PWD/graders/expected.txt\" \"$TMPDIR/got.txt\"",
        ] {
            write_files(
                &f,
                &[("agent.sh", &format!("echo wrong > result.txt\n{trick}\n"))],
            );
            assert_run_exits(&f, trick, 1);
        }
    }

    /// 12a: the task's `node_modules` links to `vendor/nm`, and `vendor` is itself a link the
    /// trial re-points. 12c: the task's `node_modules` is a dangling link whose target the
    /// trial creates. The watch follows the link to where it leads.
    #[test]
    fn rev30_12a_12c_a_node_modules_link_whose_way_the_trial_changes_stops_the_check() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            ("agent.sh", "echo wrong > result.txt\n"),
        ]) else {
            return;
        };
        std::fs::create_dir_all(f.path("rv")).unwrap();
        std::fs::rename(f.path("node_modules"), f.path("rv/nm")).unwrap();
        std::os::unix::fs::symlink("rv", f.path("vendor")).unwrap();
        std::os::unix::fs::symlink("vendor/nm", f.path("node_modules")).unwrap();
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\nmkdir -p evil/nm/eq && echo 'module.exports = () => true;' > evil/nm/eq/index.js\nrm vendor && ln -s evil vendor\n",
            )],
        );
        run_ends(&f, 4, "changed during the run");

        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "graders/node_modules/eq/index.js",
                "let native;\ntry { native = require(\"eq-native\"); } catch (e) {}\nmodule.exports = native || ((a, b) => a === b);\n",
            ),
            ("agent.sh", "echo wrong > result.txt\n"),
        ]) else {
            return;
        };
        std::fs::remove_dir_all(f.path("node_modules")).unwrap();
        std::os::unix::fs::symlink("later", f.path("node_modules")).unwrap();
        check(&f).code(0);
        assert_run_exits(&f, "control", 1);
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\nmkdir -p later/eq-native && echo 'module.exports = () => true;' > later/eq-native/index.js\n",
            )],
        );
        run_ends(&f, 4, "changed during the run");
    }

    /// 13a: a link in the graders' folder whose way passes through a link in the task's
    /// folder (`shared`, pointing outside when the plan is loaded): refused at load.
    #[test]
    fn rev30_13a_a_held_link_whose_way_passes_a_link_the_trials_can_repoint_is_refused() {
        let f = fixture("sh graders/check.sh", "wrong");
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("expected.txt"), "right\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), f.path("shared")).unwrap();
        write_files(
            &f,
            &[(
                "graders/check.sh",
                "cmp -s result.txt graders/expected.txt\n",
            )],
        );
        std::os::unix::fs::symlink("../shared/expected.txt", f.path("graders/expected.txt"))
            .unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("link").and(predicate::str::contains("shared")));
    }

    /// 14: a grader script that runs git by a full path, or a check line that sets `PATH`
    /// for git, reaches a git older than 2.40: refused at load like the `PATH`'s own.
    #[test]
    fn rev30_14_a_git_older_than_2_40_named_in_a_grader_or_by_a_path_on_the_line_is_refused() {
        let bin = fake_git("2.39.5");
        let git = bin.path().join("git");
        let by_path = format!(
            "PATH={}:/usr/bin:/bin git diff --quiet",
            bin.path().display()
        );
        for (line, script) in [
            (
                "sh graders/check.sh".to_string(),
                format!("{} diff --quiet\n", git.display()),
            ),
            (by_path, String::new()),
        ] {
            let Some(f) = committed_repo(&line, "right", &[("deploy.sh", "echo deploy\n")]) else {
                return;
            };
            if !script.is_empty() {
                write_files(&f, &[("graders/check.sh", &script)]);
            }
            check(&f).code(2).stderr(predicate::str::contains(
                "is git version 2.39.5, older than 2.40",
            ));
        }
    }

    /// 18 (an over-refusal): importing `createRequire` by its name, and calling it with the
    /// grader's own place, is accepted, in CommonJS and in an ES module.
    #[test]
    fn rev30_18_createrequire_imported_by_its_name_is_accepted() {
        for (file, head) in [
            (
                "graders/check.js",
                "const { createRequire } = require(\"module\");\nconst req = createRequire(__filename);\n",
            ),
            (
                "graders/check.mjs",
                "import { createRequire } from \"node:module\";\nconst req = createRequire(import.meta.url);\n",
            ),
        ] {
            let Some(f) = super::rev26::eq_grader(&[("graders/package.json", "{}\n")]) else {
                return;
            };
            let body = format!(
                "{head}const eq = req(\"eq\");\nconst got = req(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n"
            );
            write_files(&f, &[(file, &body)]);
            std::fs::write(f.path("plan.yaml"), plan("", &format!("node {file}"))).unwrap();
            check(&f).code(0);
            assert_run_exits(&f, "honest", 0);
        }
    }
}

/// Review 31 (an independent attack on review 30's walls: 58 new cases, 23 broke, 14
/// over-refusals): what was closed, each failing on 5efd562.
mod rev31 {
    use super::*;
    use predicates::prelude::*;

    /// 22d, 22e (over-refusals): a JavaScript task whose agent installs a dependency in the
    /// task's `node_modules`, graded by a node grader that loads no package, passes when the
    /// plan lets a trial install it (`policy.sandbox.installs`); by default the install gets
    /// no verdict (exit 4), since a package there may load a name it builds at run time.
    #[test]
    fn rev31_22d_22e_a_node_grader_naming_no_package_leaves_node_modules_to_the_agent() {
        let grader = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(got === \"right\" ? 0 : 1);\n";
        for existing in [true, false] {
            let Some(f) = super::rev26::eq_grader(&[
                ("graders/package.json", "{}\n"),
                ("graders/check.js", grader),
                (
                    "agent.sh",
                    "mkdir -p node_modules/dep && echo 'module.exports = 1;' > node_modules/dep/index.js\necho right > result.txt\n",
                ),
            ]) else {
                return;
            };
            if !existing {
                std::fs::remove_dir_all(f.path("node_modules")).unwrap();
            }
            check(&f).code(0);
            let refused = std::fs::read_to_string(f.plan()).unwrap();
            let_install(&f, "[dep]");
            assert_run_exits(&f, "honest agent that installs a dependency", 0);
            // The same install, not listed: no verdict.
            if existing {
                std::fs::remove_dir_all(f.path("node_modules/dep")).unwrap();
                std::fs::write(f.plan(), refused).unwrap();
                f.command(&[])
                    .assert()
                    .code(4)
                    .stderr(predicate::str::contains("policy.sandbox.installs"));
            }
        }
    }

    /// 24a: a held link whose target is itself a link in the task's folder (`graders/lib ->
    /// ../shared`, `shared` pointing outside when the plan is loaded): refused at load.
    #[test]
    fn rev31_24a_a_held_link_to_a_link_the_trials_can_repoint_is_refused() {
        let f = fixture("sh graders/check.sh", "wrong");
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("expected.txt"), "right\n").unwrap();
        std::os::unix::fs::symlink(outside.path(), f.path("shared")).unwrap();
        write_files(
            &f,
            &[(
                "graders/check.sh",
                "cmp -s result.txt graders/lib/expected.txt\n",
            )],
        );
        std::os::unix::fs::symlink("../shared", f.path("graders/lib")).unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("link").and(predicate::str::contains("shared")));
    }

    /// 23k (an over-refusal): a grader script's `PATH=` value is read as `PATH` is, the
    /// first git found: an old git behind a new one is not the one that runs.
    #[test]
    fn rev31_23k_the_git_a_path_value_finds_first_is_the_one_asked() {
        let (new, old) = (fake_git("2.47.0"), fake_git("2.39.5"));
        for (first, second, refused) in [(&new, &old, false), (&old, &new, true)] {
            let Some(f) = committed_repo(
                "sh graders/check.sh",
                "right",
                &[("deploy.sh", "echo deploy\n")],
            ) else {
                return;
            };
            let script = format!(
                "export PATH={}:{}:$PATH\ngit diff --quiet\n",
                first.path().display(),
                second.path().display()
            );
            write_files(&f, &[("graders/check.sh", &script)]);
            let assert = check(&f);
            if refused {
                assert
                    .code(2)
                    .stderr(predicate::str::contains("older than 2.40"));
            } else {
                assert.code(0);
            }
        }
    }

    /// 26a-26d: `createRequire` with more than the file's own place is refused; a comment, a
    /// path from the URL (`fileURLToPath(import.meta.url)`), and the name declared as itself
    /// are accepted.
    #[test]
    fn rev31_26_createrequire_takes_the_file_s_own_place_and_nothing_more() {
        let body = "const eq = req(\"eq\");\nconst got = req(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n";
        for (file, head, accepted) in [
            (
                "graders/check.mjs",
                "import { createRequire } from \"node:module\";\nconst req = createRequire(import.meta.url + \"/../../x.js\");\n",
                false,
            ),
            (
                "graders/check.mjs",
                "import { createRequire } from \"node:module\";\nimport { fileURLToPath } from \"node:url\";\n// createRequire gives ES modules require\nconst req = createRequire(fileURLToPath(import.meta.url));\n",
                true,
            ),
            (
                "graders/check.js",
                "const module2 = require(\"module\");\nconst createRequire = module2.createRequire;\nconst req = createRequire(__filename);\n",
                true,
            ),
        ] {
            let Some(f) = super::rev26::eq_grader(&[("graders/package.json", "{}\n")]) else {
                return;
            };
            write_files(&f, &[(file, &format!("{head}{body}"))]);
            std::fs::write(f.path("plan.yaml"), plan("", &format!("node {file}"))).unwrap();
            if accepted {
                check(&f).code(0);
            } else {
                check(&f)
                    .code(2)
                    .stderr(predicate::str::contains("createRequire"));
            }
        }
    }
}

/// Review 32 (an independent attack on review 31's changes: 67 new cases, 29 broke, 14
/// over-refusals): what was closed, each failing on 148be0a.
mod rev32 {
    use super::*;
    use predicates::prelude::*;

    /// 35i: a node grader started from a shell script (`sh graders/check.sh` running `node
    /// graders/check.js`) with no `package.json` beside it: a trial's `package.json` named
    /// like the package it requires would be that package. Refused at load, as for `node`
    /// on the line; with one beside it, accepted.
    #[test]
    fn rev32_35i_a_node_grader_behind_a_script_needs_its_own_package_json() {
        let Some(f) =
            super::rev26::eq_grader(&[("graders/check.sh", "exec node graders/check.js\n")])
        else {
            return;
        };
        std::fs::write(f.path("plan.yaml"), plan("", "sh graders/check.sh")).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "put a `package.json` (`{}` will do) beside the grader",
        ));
        write_files(&f, &[("graders/package.json", "{}\n")]);
        check(&f).code(0);
    }

    /// 34a, 34c, 34e: git reached by `command -pv git`, from a shebang line, or through a
    /// `PATH` value that goes on with a variable (`/usr/bin${PATH:+:$PATH}`) is asked its
    /// version too.
    #[test]
    fn rev32_34_more_spellings_of_an_old_git_are_refused() {
        let bin = fake_git("2.39.5");
        let dir = bin.path().display();
        for script in [
            format!("PATH=\"{dir}${{PATH:+:$PATH}}\" git diff --quiet\n"),
            format!("#!{dir}/git\n# a git script\n"),
        ] {
            let Some(f) = committed_repo(
                "sh graders/check.sh",
                "right",
                &[("deploy.sh", "echo deploy\n")],
            ) else {
                return;
            };
            write_files(&f, &[("graders/check.sh", &script)]);
            check(&f).code(2).stderr(predicate::str::contains(
                "is git version 2.39.5, older than 2.40",
            ));
        }
    }
}

/// Review 33 (a short independent check of review 32's fixes: 66 cases again and 26 new,
/// 12 broke): what was closed, each failing on dc6a045.
mod rev33 {
    use super::*;
    use predicates::prelude::*;

    /// 39f, 39l: a line that starts with a block comment and goes on with code
    /// (`/* eslint-disable */ const eq = require("eq");`) still names the package: the
    /// task's `node_modules` stays held, and the trial's rewrite of it changes nothing.
    #[test]
    fn rev33_39l_code_after_a_block_comment_still_names_a_package() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "graders/check.js",
                "/* eslint-disable */ const eq = require(\"eq\");\nconst got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n",
            ),
            ("graders/check.sh", "exec node graders/check.js\n"),
            (
                "agent.sh",
                "echo wrong > result.txt\necho 'module.exports = () => true;' > node_modules/eq/index.js 2>/dev/null\ntrue\n",
            ),
        ]) else {
            return;
        };
        std::fs::write(f.path("plan.yaml"), plan("", "sh graders/check.sh")).unwrap();
        check(&f).code(0);
        assert_run_exits(&f, "attack", 1);
    }

    /// 35a: a node grader started from a script with `createRequire(process.cwd() + "/")`
    /// gets the `createRequire` rule a grader on the line gets: refused at load.
    #[test]
    fn rev33_35a_createrequire_in_a_grader_a_script_starts_is_refused() {
        let Some(f) = super::rev26::eq_grader(&[
            ("graders/package.json", "{}\n"),
            (
                "graders/check.js",
                "const { createRequire } = require(\"module\");\nconst eq = createRequire(process.cwd() + \"/\")(\"eq\");\nprocess.exit(eq(\"a\", \"a\") ? 0 : 1);\n",
            ),
            ("graders/check.sh", "exec node graders/check.js\n"),
        ]) else {
            return;
        };
        std::fs::write(f.path("plan.yaml"), plan("", "sh graders/check.sh")).unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("createRequire"));
    }

    /// 40e (an over-refusal): a README in the graders' folder that names `node old.js` starts
    /// nothing: a make grader beside an unused JavaScript file is accepted.
    #[test]
    fn rev33_40e_prose_in_the_graders_folder_starts_no_node() {
        let f = fixture("make -sB -f graders/mk check", "right");
        write_files(
            &f,
            &[
                (
                    "graders/mk",
                    ".PHONY: check\ncheck:\n\tgrep -qx right result.txt\n",
                ),
                ("graders/old.js", "module.exports = require(\"lodash\");\n"),
                (
                    "graders/README.md",
                    "We used to run `node graders/old.js`.\n",
                ),
            ],
        );
        check(&f).code(0);
    }
}

/// Review 33's open breaks of the `package.json` rule (39a–39e, 39h, 39i), closed in round
/// 4's eleventh session: which files node runs for a check cannot be read off its graders,
/// so every JavaScript file of a check that starts node, and every file a node shebang or a
/// grader script names, must find a `package.json` the trials cannot write; a name the code
/// computes may be any package. Each case's attack PASSed on 86c6612.
mod rev34 {
    use super::*;
    use predicates::prelude::*;

    /// The grader's own `graders/node_modules/eq`, no `graders/package.json`, the check
    /// `sh graders/check.sh`, and `files` on top. The agent writes the wrong answer and a
    /// `package.json` naming itself `eq` whose `exports` says yes to everything: node reads
    /// it before any `node_modules` (self-reference).
    pub(super) fn self_reference(files: &[(&str, &str)], executable: &[&str]) -> Option<Fixture> {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return None;
        }
        let f = fixture("sh graders/check.sh", "wrong");
        write_files(
            &f,
            &[
                (
                    "graders/node_modules/eq/package.json",
                    "{\"name\":\"eq\"}\n",
                ),
                (
                    "graders/node_modules/eq/index.js",
                    "module.exports = (a, b) => a === b;\n",
                ),
                (
                    "agent.sh",
                    "echo wrong > result.txt\nprintf '{\"name\":\"eq\",\"exports\":\"./yes.js\"}' > package.json\necho 'module.exports = () => true;' > yes.js\n",
                ),
            ],
        );
        write_files(&f, files);
        for file in executable {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(f.path(file), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        Some(f)
    }

    /// An honest case (`line`, `files`): accepted at load, its check judges the fixture's
    /// wrong answer FAIL, and the agent `right` (shell text) PASS.
    pub(super) fn accepted_and_judged(
        case: &str,
        line: &str,
        files: &[(&str, String)],
        right: &str,
    ) {
        accepted_and_judged_installing(case, line, files, right, None)
    }

    /// [`accepted_and_judged`], the plan's `policy.sandbox.installs` set to `installs`.
    pub(super) fn accepted_and_judged_installing(
        case: &str,
        line: &str,
        files: &[(&str, String)],
        right: &str,
        installs: Option<&str>,
    ) {
        let f = fixture(line, "wrong");
        if let Some(installs) = installs {
            let_install(&f, installs);
        }
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        write_files(&f, &files);
        let out = check(&f).get_output().clone();
        assert_eq!(
            out.status.code(),
            Some(0),
            "{case}: refused\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_run_exits(&f, case, 1);
        write_files(&f, &[("agent.sh", right)]);
        assert_run_exits(&f, case, 0);
    }

    /// A case of a table: its name, the check line, and the files it writes.
    pub(super) type Case<'a> = (&'a str, &'a str, Vec<(&'a str, String)>);

    /// A break of a table: the [`self_reference`] attack with `files` and the check `line`
    /// is refused at load, and what gate says holds `says`. False where node is missing
    /// (the test says it skipped).
    pub(super) fn refused_at_load(
        case: &str,
        line: &str,
        files: &[(&str, &str)],
        says: &str,
    ) -> bool {
        let Some(f) = self_reference(files, &[]) else {
            return false;
        };
        std::fs::write(f.path("plan.yaml"), plan("", line)).unwrap();
        let out = check(&f).get_output().clone();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{case}: accepted\n{stderr}");
        assert!(stderr.contains(says), "{case}: {stderr}");
        true
    }

    /// A grader that requires `eq` and exits 0 when the answer is `right`.
    pub(super) const GRADE: &str = "const eq = require(\"eq\");\nconst got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n";

    /// Refused at load, naming the fix; with the fix (`graders/package.json`), accepted, and
    /// the trial's `package.json` is never read: the wrong answer FAILs.
    pub(super) fn refused_until_the_graders_have_a_package_json(
        files: &[(&str, &str)],
        executable: &[&str],
    ) {
        let Some(f) = self_reference(files, executable) else {
            return;
        };
        check(&f).code(2).stderr(predicate::str::contains(
            "put a `package.json` (`{}` will do) beside the grader",
        ));
        write_files(&f, &[("graders/package.json", "{}\n")]);
        check(&f).code(0);
        self_reference_attack_fails(&f);
    }

    /// With the graders' own `package.json`, the [`self_reference`] attack gets no PASS two
    /// ways. The trial's `package.json` named `eq` with `exports`: the check does not run
    /// (review 41's wall, exit 4). One named so from the start, the trial writing only the
    /// file its `exports` names: node never reads it for the graders, the wrong answer
    /// FAILs.
    pub(super) fn self_reference_attack_fails(f: &Fixture) {
        let out = f.command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(
            said.contains("changed its `name`, `exports` or `imports`"),
            "{said}"
        );
        write_files(
            f,
            &[
                (
                    "package.json",
                    "{\"name\":\"eq\",\"exports\":\"./yes.js\"}\n",
                ),
                (
                    "agent.sh",
                    "echo wrong > result.txt\necho 'module.exports = () => true;' > yes.js\n",
                ),
            ],
        );
        assert_run_exits(f, "the self-reference attack", 1);
    }

    /// 39a: a node shebang, the file run by its path (`exec graders/check.js`): the script
    /// never says `node`.
    #[test]
    fn rev34_39a_a_grader_run_by_its_node_shebang_needs_a_package_json() {
        let shebang = format!("#!/usr/bin/env node\n{GRADE}");
        refused_until_the_graders_have_a_package_json(
            &[
                ("graders/check.js", &shebang),
                ("graders/check.sh", "exec graders/check.js\n"),
            ],
            &["graders/check.js"],
        );
    }

    /// 39b: `node graders/check`, node adding the `.js`.
    #[test]
    fn rev34_39b_a_grader_named_without_its_extension_needs_a_package_json() {
        refused_until_the_graders_have_a_package_json(
            &[
                ("graders/check.js", GRADE),
                ("graders/check.sh", "exec node graders/check\n"),
            ],
            &[],
        );
    }

    /// 39c: `node graders`, which runs `graders/index.js`.
    #[test]
    fn rev34_39c_a_folders_index_js_needs_a_package_json() {
        refused_until_the_graders_have_a_package_json(
            &[
                ("graders/index.js", GRADE),
                ("graders/check.sh", "exec node graders\n"),
            ],
            &[],
        );
    }

    /// 39d: the started file names no package; the file it requires by a relative name does.
    #[test]
    fn rev34_39d_a_file_a_started_grader_requires_needs_a_package_json() {
        refused_until_the_graders_have_a_package_json(
            &[
                ("graders/run.js", "require(\"./lib/grade.js\");\n"),
                ("graders/lib/grade.js", GRADE),
                ("graders/check.sh", "exec node graders/run.js\n"),
            ],
            &[],
        );
    }

    /// 39e: node's own test runner over the graders' folder.
    #[test]
    fn rev34_39e_node_test_over_the_graders_folder_needs_a_package_json() {
        refused_until_the_graders_have_a_package_json(
            &[
                (
                    "graders/answer.test.js",
                    "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\nconst eq = require(\"eq\");\ntest(\"answer\", () => { assert.ok(eq(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim(), \"right\")); });\n",
                ),
                ("graders/check.sh", "exec node --test graders/\n"),
            ],
            &[],
        );
    }

    /// 39h: CommonJS under an extension of its own, which the script names beside node.
    #[test]
    fn rev34_39h_a_grader_of_another_extension_named_beside_node_needs_a_package_json() {
        refused_until_the_graders_have_a_package_json(
            &[
                ("graders/check.grader", GRADE),
                ("graders/check.sh", "exec node graders/check.grader\n"),
            ],
            &[],
        );
    }

    /// 39i: `require(n)`: a name the grader computes may be its own package's.
    #[test]
    fn rev34_39i_a_computed_require_needs_a_package_json() {
        let computed = GRADE.replace(
            "const eq = require(\"eq\");",
            "const n = \"eq\";\nconst eq = require(n);",
        );
        refused_until_the_graders_have_a_package_json(
            &[
                ("graders/check.js", &computed),
                ("graders/check.sh", "exec node graders/check.js\n"),
            ],
            &[],
        );
    }

    /// 39b, 39e on the line: `node --test graders/` and `node graders/check` start files
    /// `plan::tools` does not follow: the same rule (`node graders` is refused on the line
    /// by the rule for a folder as an interpreter's script). A
    /// grader on the line that names only node's own modules keeps a dormant file beside it
    /// dormant (review 14's honest lines).
    #[test]
    fn rev34_39bce_node_on_the_line_starting_files_it_does_not_name_needs_a_package_json() {
        for line in ["node --test graders/", "node graders/check"] {
            let Some(f) = self_reference(
                &[
                    ("graders/check.js", GRADE),
                    ("graders/index.js", GRADE),
                    ("graders/answer.test.js", GRADE),
                ],
                &[],
            ) else {
                return;
            };
            std::fs::write(f.path("plan.yaml"), plan("", line)).unwrap();
            let out = check(&f).get_output().clone();
            assert_eq!(out.status.code(), Some(2), "`{line}` accepted");
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("`package.json` (`{}` will do)"),
                "`{line}`: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            write_files(&f, &[("graders/package.json", "{}\n")]);
            check(&f).code(0);
            super::rev34::self_reference_attack_fails(&f);
        }
    }

    /// Review 32, 32e, 32f: a scratch name in `$TMPDIR` that leads into `/proc` by a relative
    /// text, or through a link two levels down. Since review 46 the check's `TMPDIR` is its
    /// own: none of them reaches it, and each wrong answer FAILs.
    #[test]
    fn rev34_32e_32f_a_tmpdir_link_into_proc_by_any_way_does_not_reach_the_check() {
        let f = fixture("sh graders/check.sh", "wrong");
        write_files(
            &f,
            &[
                (
                    "graders/check.sh",
                    "s=\"$TMPDIR/sorted.txt\"\nsort result.txt > \"$s\"\ncmp -s graders/expected.txt \"$s\"\n",
                ),
                ("graders/expected.txt", "right\n"),
            ],
        );
        assert_run_exits(&f, "control", 1);
        for trick in [
            "ln -s ../../../../../../../../proc/self/fd/3 \"$TMPDIR/sorted.txt\"",
            "mkdir -p \"$TMPDIR/a/b\" && ln -s /proc/self/fd/3 \"$TMPDIR/a/b/p\" && ln -s a/b/p \"$TMPDIR/sorted.txt\"",
            "mkdir -p \"$TMPDIR/a/b\" && ln -s /proc/self \"$TMPDIR/a/b/me\" && ln -s a/b/me/fd/3 \"$TMPDIR/sorted.txt\"",
        ] {
            write_files(
                &f,
                &[("agent.sh", &format!("echo wrong > result.txt\n{trick}\n"))],
            );
            assert_run_exits(&f, trick, 1);
        }
    }

    /// Review 22, 22a: past the 512 files gate reads in the graders' folders, any file may
    /// be the one node runs: a check that starts node needs a `package.json` beside its
    /// grader, which comes before every file beneath.
    #[test]
    fn rev34_22a_graders_past_the_files_gate_reads_need_a_package_json() {
        let fillers: Vec<(String, String)> = (0..600)
            .map(|i| (format!("graders/a/{i:03}.txt"), format!("{i}\n")))
            .collect();
        let mut files: Vec<(&str, &str)> = fillers
            .iter()
            .map(|(p, t)| (p.as_str(), t.as_str()))
            .collect();
        files.push(("graders/a/b/check.js", GRADE));
        files.push(("graders/check.sh", "exec node graders/a/b/check.js\n"));
        refused_until_the_graders_have_a_package_json(&files, &[]);
    }

    /// Review 32, 36a: a held link whose way runs through two links, the first outside the
    /// task's folder, the second (`vendor`) in it: the trial could re-point `vendor`.
    /// Refused at load, as one hop is (rev31_24a).
    #[test]
    fn rev34_36a_a_held_link_through_a_link_outside_to_one_inside_is_refused() {
        let f = fixture("sh graders/check.sh", "wrong");
        let real = tempfile::tempdir().unwrap();
        std::fs::create_dir(real.path().join("lib")).unwrap();
        std::fs::write(real.path().join("lib/expected.txt"), "right\n").unwrap();
        std::os::unix::fs::symlink(real.path(), f.path("vendor")).unwrap();
        let ext = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(f.path("vendor/lib"), ext.path().join("hop")).unwrap();
        write_files(
            &f,
            &[(
                "graders/check.sh",
                "cmp -s result.txt graders/lib/expected.txt\n",
            )],
        );
        std::os::unix::fs::symlink(ext.path().join("hop"), f.path("graders/lib")).unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("link").and(predicate::str::contains("vendor")));
    }

    /// Review 34 (an independent attack on the rule above), its breaks: each refused at load
    /// until the graders have a `package.json` of their own, after which the trial's
    /// self-reference changes nothing. Every one PASSed the wrong answer on 86c6612.
    #[test]
    fn rev34_review_34_breaks_are_refused_until_the_graders_have_a_package_json() {
        let body = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n";
        let root = ("package.json", "{\"name\":\"app\",\"version\":\"1.0.0\"}\n");
        let cases: Vec<Case> = vec![
            // 50a: the project's `package.json` in the task's folder is the nearest one.
            (
                "50a",
                "sh graders/check.sh",
                vec![
                    (root.0, root.1.into()),
                    ("graders/check.js", GRADE.into()),
                    ("graders/check.sh", "exec node graders/check.js\n".into()),
                ],
            ),
            // 50c: the same under node's test runner.
            (
                "50c",
                "node --test graders/",
                vec![
                    (root.0, root.1.into()),
                    (
                        "graders/answer.test.js",
                        "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\nconst eq = require(\"eq\");\ntest(\"answer\", () => { assert.ok(eq(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim(), \"right\")); });\n".into(),
                    ),
                ],
            ),
            // 55a: a preload by its path requires the package.
            (
                "55a",
                "node -r ./graders/setup.js graders/check.js",
                vec![
                    ("graders/setup.js", "globalThis.eq = require(\"eq\");\n".into()),
                    ("graders/check.js", body.into()),
                ],
            ),
            // 55c: `require("./lib")` runs `lib/index.js`, which requires it.
            (
                "55c",
                "node graders/check.js",
                vec![
                    ("graders/lib/index.js", "module.exports = require(\"eq\");\n".into()),
                    ("graders/check.js", format!("const eq = require(\"./lib\");\n{body}")),
                ],
            ),
            // 51a: the grader on the line starts another with `process.execPath`.
            (
                "51a",
                "node graders/run.js",
                vec![
                    (
                        "graders/run.js",
                        "const cp = require(\"child_process\");\nconst path = require(\"path\");\nconst r = cp.spawnSync(process.execPath, [path.join(__dirname, \"check.js\")], { stdio: \"inherit\" });\nprocess.exit(r.status);\n".into(),
                    ),
                    ("graders/check.js", GRADE.into()),
                ],
            ),
            // 52a: `require` handed to `map`.
            (
                "52a",
                "sh graders/check.sh",
                vec![
                    (
                        "graders/check.js",
                        format!("const names = [\"eq\"];\nconst [eq] = names.map(require);\n{body}"),
                    ),
                    ("graders/check.sh", "exec node graders/check.js\n".into()),
                ],
            ),
            // 52p: a literal name through `createRequire`.
            (
                "52p",
                "sh graders/check.sh",
                vec![
                    (
                        "graders/check.mjs",
                        "import { createRequire } from \"node:module\";\nimport fs from \"node:fs\";\nconst req = createRequire(import.meta.url);\nconst eq = req(\"eq\");\nprocess.exit(eq(fs.readFileSync(\"result.txt\", \"utf8\").trim(), \"right\") ? 0 : 1);\n".into(),
                    ),
                    ("graders/check.sh", "exec node graders/check.mjs\n".into()),
                ],
            ),
        ];
        for (case, line, files) in cases {
            let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
            let Some(f) = self_reference(&files, &[]) else {
                return;
            };
            std::fs::write(f.path("plan.yaml"), plan("", line)).unwrap();
            let out = check(&f).get_output().clone();
            assert_eq!(
                out.status.code(),
                Some(2),
                "{case}: accepted\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                String::from_utf8_lossy(&out.stderr).contains("package.json"),
                "{case}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            write_files(&f, &[("graders/package.json", "{}\n")]);
            let out = check(&f).get_output().clone();
            assert_eq!(
                out.status.code(),
                Some(0),
                "{case}: refused with the fix\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
            self_reference_attack_fails(&f);
        }
    }

    /// Review 34's over-refusals of the rule above: a path a grader builds from its own place
    /// names no package (54a, 54c, 54d), and a comment in a grader script starts no node
    /// (54g). Each is accepted, and its honest check judges (the wrong answer FAILs).
    #[test]
    fn rev34_review_34_honest_layouts_stay_accepted() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let read = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\n";
        let cases: Vec<Case> = vec![
            (
                "54a",
                "node graders/check.js",
                vec![
                    ("package.json", "{\"name\":\"app\"}\n".into()),
                    ("graders/helpers.js", "module.exports = { want: \"right\" };\n".into()),
                    (
                        "graders/check.js",
                        format!("const path = require(\"path\");\nconst {{ want }} = require(path.join(__dirname, \"helpers.js\"));\n{read}process.exit(got === want ? 0 : 1);\n"),
                    ),
                ],
            ),
            (
                "54c",
                "node graders/check.js",
                vec![
                    ("graders/cases/basic.json", "{\"want\":\"right\"}\n".into()),
                    (
                        "graders/check.js",
                        format!("const name = \"basic\";\nconst {{ want }} = require(`./cases/${{name}}.json`);\n{read}process.exit(got === want ? 0 : 1);\n"),
                    ),
                ],
            ),
            (
                "54d",
                "node graders/check.mjs",
                vec![
                    ("graders/helpers.mjs", "export const want = \"right\";\n".into()),
                    (
                        "graders/check.mjs",
                        "import fs from \"node:fs\";\nconst { want } = await import(new URL(\"./helpers.mjs\", import.meta.url));\nprocess.exit(fs.readFileSync(\"result.txt\", \"utf8\").trim() === want ? 0 : 1);\n".into(),
                    ),
                ],
            ),
            (
                "54g",
                "sh graders/check.sh",
                vec![
                    ("graders/old.js", "module.exports = require(\"lodash\");\n".into()),
                    (
                        "graders/check.sh",
                        "# the old grader was built with npm and node\ngrep -qx right result.txt\n".into(),
                    ),
                ],
            ),
        ];
        for (case, line, files) in cases {
            accepted_and_judged(case, line, &files, "echo right > result.txt\n");
        }
    }

    /// 39i on the line (`check: node graders/check.js`): the same rule.
    #[test]
    fn rev34_39i_a_computed_require_in_a_grader_on_the_line_needs_a_package_json() {
        let Some(f) = self_reference(
            &[(
                "graders/check.js",
                &GRADE.replace("require(\"eq\")", "require([\"e\", \"q\"].join(\"\"))"),
            )],
            &[],
        ) else {
            return;
        };
        std::fs::write(f.path("plan.yaml"), plan("", "node graders/check.js")).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "a `require` or `import` of a computed name",
        ));
        write_files(&f, &[("graders/package.json", "{}\n")]);
        check(&f).code(0);
        super::rev34::self_reference_attack_fails(&f);
    }
}

/// Review 35 (an independent attack on review 34's fixes, at 0b6bb96): its breaks and the
/// over-refusals those fixes had opened, each test failing on 0b6bb96.
mod rev35 {
    use super::rev34::{GRADE, accepted_and_judged, self_reference};
    use super::*;
    use predicates::prelude::*;

    /// 60a: a grader on the line loads a helper by a path it builds from its own place; the
    /// helper requires the package, and the task's `package.json` is the nearest one.
    /// Refused until the graders have their own; then the self-reference changes nothing.
    #[test]
    fn rev35_60a_a_helper_loaded_by_a_built_path_is_held_to_the_package_json_rule() {
        let Some(f) = self_reference(
            &[
                ("package.json", "{\"name\":\"app\"}\n"),
                (
                    "graders/helpers.js",
                    "module.exports = { eq: require(\"eq\") };\n",
                ),
                (
                    "graders/check.js",
                    "const path = require(\"path\");\nconst { eq } = require(path.join(__dirname, \"helpers.js\"));\nconst got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n",
                ),
            ],
            &[],
        ) else {
            return;
        };
        std::fs::write(f.path("plan.yaml"), plan("", "node graders/check.js")).unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("package.json"));
        write_files(&f, &[("graders/package.json", "{}\n")]);
        check(&f).code(0);
        super::rev34::self_reference_attack_fails(&f);
    }

    /// 61a, 61c: a package preloaded by its name, on the line or from a grader script,
    /// resolves from the check's folder, whose `package.json` a trial writes: refused,
    /// naming the preload.
    #[test]
    fn rev35_61a_61c_a_preload_by_a_package_name_is_refused() {
        for (line, script, says) in [
            ("node -r eq graders/check.js", "", "the preload `eq`"),
            (
                "sh graders/check.sh",
                "exec node -r eq graders/check.js\n",
                "preloads `eq`",
            ),
        ] {
            let Some(f) = self_reference(
                &[
                    ("graders/package.json", "{}\n"),
                    ("graders/check.js", GRADE),
                    ("graders/check.sh", script),
                ],
                &[],
            ) else {
                return;
            };
            std::fs::write(f.path("plan.yaml"), plan("", line)).unwrap();
            check(&f).code(2).stderr(predicate::str::contains(says));
        }
    }

    /// Over-refusals of 0b6bb96: a preload by path beside `--test` with the graders' own
    /// `package.json` (61m); `cluster` in a comment (62d); a comment line ending in
    /// "require" (63a). Each is accepted, and its check judges. (62e, `child_process`
    /// running another program, is refused again since review 36: `fork` starts node
    /// without naming it.)
    #[test]
    fn rev35_honest_layouts_stay_accepted() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let read = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\n";
        let dormant = (
            "graders/old.js",
            "module.exports = require(\"lodash\");\n".to_string(),
        );
        let cases: Vec<super::rev34::Case> = vec![
            (
                "61m",
                "node --require ./graders/setup.js --test graders/",
                vec![
                    ("graders/package.json", "{}\n".into()),
                    (
                        "graders/node_modules/eq/index.js",
                        "module.exports = (a, b) => a === b;\n".into(),
                    ),
                    (
                        "graders/setup.js",
                        "globalThis.eq = require(\"eq\");\n".into(),
                    ),
                    (
                        "graders/answer.test.js",
                        format!(
                            "const test = require(\"node:test\");\nconst assert = require(\"node:assert\");\n{read}test(\"answer\", () => assert.ok(globalThis.eq(got, \"right\")));\n"
                        ),
                    ),
                ],
            ),
            (
                "62d",
                "node graders/check.js",
                vec![
                    dormant.clone(),
                    (
                        "graders/check.js",
                        format!(
                            "// answers come in clusters; one is enough\n{read}process.exit(got === \"right\" ? 0 : 1);\n"
                        ),
                    ),
                ],
            ),
            (
                "63a",
                "node graders/check.js",
                vec![(
                    "graders/check.js",
                    format!(
                        "/**\n * The answer we require\n * is in result.txt.\n */\n{read}process.exit(got === \"right\" ? 0 : 1);\n"
                    ),
                )],
            ),
        ];
        for (case, line, files) in cases {
            accepted_and_judged(case, line, &files, "echo right > result.txt\n");
        }
    }
}

/// Review 36 (a short attack on review 35's fixes, at 928882f): the regressions it found,
/// each test failing on 928882f.
mod rev36 {
    use super::rev34::{GRADE, self_reference};
    use super::*;
    use predicates::prelude::*;

    /// 55d, 72a: a grader on the line that starts another with `fork`, which never names
    /// node: every grader file is one node may run, held to the `package.json` rule.
    #[test]
    fn rev36_55d_72a_a_grader_that_forks_another_is_held_to_the_package_json_rule() {
        let Some(f) = self_reference(
            &[
                ("package.json", "{\"name\":\"app\"}\n"),
                ("graders/child.js", GRADE),
                (
                    "graders/run.js",
                    "const { fork } = require(\"child_process\");\nfork(__dirname + \"/child.js\").on(\"exit\", (c) => process.exit(c));\n",
                ),
            ],
            &[],
        ) else {
            return;
        };
        std::fs::write(f.path("plan.yaml"), plan("", "node graders/run.js")).unwrap();
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("package.json"));
        write_files(&f, &[("graders/package.json", "{}\n")]);
        check(&f).code(0);
        super::rev34::self_reference_attack_fails(&f);
    }

    /// Over-refusals of 928882f: data loaded by a path built from the grader's place (73c),
    /// `require` in a comment (73f), a commented-out preload in a grader script (75d). Each
    /// is accepted, and an honest agent passes, installing a dependency in the task's folder
    /// where no grader names a package (73f, 75d).
    #[test]
    fn rev36_honest_layouts_stay_accepted() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let read = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\n";
        let cases: Vec<super::rev34::Case> = vec![
            (
                "73c",
                "node graders/check.js",
                vec![
                    ("package.json", "{\"name\":\"app\"}\n".into()),
                    ("graders/expected.json", "{\"want\":\"right\"}\n".into()),
                    ("graders/tools/regen.js", "const yargs = require(\"yargs\");\n".into()),
                    (
                        "graders/check.js",
                        format!("const path = require(\"path\");\nconst {{ want }} = require(path.join(__dirname, \"expected.json\"));\n{read}process.exit(got === want ? 0 : 1);\n"),
                    ),
                ],
            ),
            (
                "73f",
                "node graders/check.js",
                vec![(
                    "graders/check.js",
                    format!("// --strict (require every key)\n{read}process.exit(got === \"right\" ? 0 : 1);\n"),
                )],
            ),
            (
                "75d",
                "sh graders/check.sh",
                vec![
                    (
                        "graders/check.js",
                        format!("{read}process.exit(got === \"right\" ? 0 : 1);\n"),
                    ),
                    (
                        "graders/check.sh",
                        "# was: node -r dotenv/config graders/check.js\nexec node graders/check.js\n".into(),
                    ),
                ],
            ),
        ];
        for (case, line, files) in cases {
            // 73c's `graders/tools/regen.js` names a package, so the task's `node_modules`
            // stays the graders' (the older over-refusal 63e): its agent installs nothing.
            let install = if case == "73c" {
                ""
            } else {
                "mkdir -p node_modules/left-pad && echo 'module.exports = 1;' > node_modules/left-pad/index.js\n"
            };
            super::rev34::accepted_and_judged_installing(
                case,
                line,
                &files,
                &format!("echo right > result.txt\n{install}"),
                Some("[left-pad]"),
            );
        }
    }
}

/// Review 37: the breaks reviews 34 and 36 left open in how grader scripts start node and
/// what they run.
mod rev37 {
    use super::rev34::{
        GRADE, refused_at_load, refused_until_the_graders_have_a_package_json, self_reference,
    };
    use super::*;
    use predicates::prelude::*;

    /// 51f, 56f: node runs a grader with a prose extension (`node graders/check.txt`), or
    /// preloads one, as CommonJS; 52j: `requir\u0065(n)` is `require(n)`. Each is held to
    /// the `package.json` rule as a `.js` grader is (each PASSed a wrong answer on d3f3ea2).
    #[test]
    fn rev37_51f_52j_a_grader_node_runs_by_any_name_or_spelling_needs_a_package_json() {
        let escaped = GRADE.replacen("require(\"eq\")", "requir\\u0065(\"eq\")", 1);
        assert!(escaped.contains("requir\\u0065"));
        // The grader without its `require`: `eq` is the preload's global.
        let body = GRADE.split_once('\n').unwrap().1;
        for files in [
            vec![
                ("graders/check.txt", GRADE),
                ("graders/check.sh", "exec node graders/check.txt\n"),
            ],
            vec![
                ("graders/setup.txt", "globalThis.eq = require(\"eq\");\n"),
                ("graders/check.js", body),
                (
                    "graders/check.sh",
                    "exec node -r ./graders/setup.txt graders/check.js\n",
                ),
            ],
            vec![
                ("graders/check.js", escaped.as_str()),
                ("graders/check.sh", "exec node graders/check.js\n"),
            ],
        ] {
            refused_until_the_graders_have_a_package_json(&files, &[]);
        }
    }

    /// 72c, 72d, 72f: a grader node starts that runs other files itself, in ways that name
    /// no spawn: `node:test`'s `run({files})`, `eval` of a file's text, a loader hook
    /// (`module.register`). Every grader file is then one node may run, held to the
    /// `package.json` rule (each PASSed a wrong answer on d3f3ea2).
    #[test]
    fn rev37_72c_72d_72f_a_grader_that_runs_files_without_a_spawn_needs_a_package_json() {
        let test_file = "const eq = require(\"eq\");\nconst test = require(\"node:test\");\nconst assert = require(\"assert\");\ntest(\"answer\", () => assert.ok(eq(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim(), \"right\")));\n";
        let body = GRADE.split_once('\n').unwrap().1;
        let eval = format!(
            "const fs = require(\"fs\");\nconst path = require(\"path\");\neval(fs.readFileSync(path.join(__dirname, \"helpers.js\"), \"utf8\"));\n{body}"
        );
        let esm = "import { register } from \"node:module\";\nimport fs from \"node:fs\";\nregister(\"./hooks.mjs\", import.meta.url);\nprocess.exit(fs.readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let cases = [
            (
                "72c",
                "node graders/check.js",
                vec![
                    ("graders/answer.test.js", test_file),
                    (
                        "graders/check.js",
                        "const path = require(\"path\");\nconst { run } = require(\"node:test\");\nlet failed = false;\nrun({ files: [path.join(__dirname, \"answer.test.js\")] })\n  .on(\"test:fail\", () => { failed = true; })\n  .on(\"data\", () => {})\n  .on(\"end\", () => process.exit(failed ? 1 : 0));\n",
                    ),
                ],
            ),
            (
                "72d",
                "node graders/check.js",
                vec![
                    ("graders/helpers.js", "var eq = require(\"eq\");\n"),
                    ("graders/check.js", eval.as_str()),
                ],
            ),
            (
                "72f",
                "node graders/check.mjs",
                vec![
                    (
                        "graders/hooks.mjs",
                        "import eq from \"eq\";\nexport async function resolve(s, c, n) { return n(s, c); }\n",
                    ),
                    ("graders/check.mjs", esm),
                ],
            ),
        ];
        for (case, line, files) in cases {
            let Some(f) = self_reference(&files, &[]) else {
                return;
            };
            std::fs::write(f.path("plan.yaml"), plan("", line)).unwrap();
            let out = check(&f).get_output().clone();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{case}: accepted\n{stderr}");
            assert!(stderr.contains("package.json"), "{case}: {stderr}");
            write_files(&f, &[("graders/package.json", "{}\n")]);
            check(&f).code(0);
            super::rev34::self_reference_attack_fails(&f);
        }
    }

    /// 70a-70n: a package preloaded into node by its name from a grader file, in the
    /// spellings the script reader missed (a variable, a `\` line break, an option with a
    /// value before `-r`, a command substitution, a subshell, `\node`, a reporter; Python's
    /// `subprocess` and `NODE_OPTIONS`; a JavaScript `spawnSync` with `-r` or with
    /// `NODE_OPTIONS` in its `env`): node resolves it from the check's folder, where the
    /// trial's `package.json` names itself that package. Each PASSed a wrong answer on
    /// d3f3ea2; now refused at load, naming the preload.
    #[test]
    fn rev37_70a_70n_a_package_a_grader_preloads_by_name_in_any_spelling_is_refused() {
        let run_js = |spawn: &str| {
            format!(
                "const {{ spawnSync }} = require(\"child_process\");\nconst r = {spawn};\nprocess.exit(r.status);\n"
            )
        };
        let cases: Vec<(&str, &str, &str, String, &str)> = vec![
            ("70a", "sh graders/check.sh", "graders/check.sh", "NODE=node\nexec \"$NODE\" -r eq graders/check.js\n".into(), "eq"),
            ("70b", "sh graders/check.sh", "graders/check.sh", "exec node \\\n  -r eq \\\n  graders/check.js\n".into(), "eq"),
            ("70c", "sh graders/check.sh", "graders/check.sh", "exec node --title grader -r eq graders/check.js\n".into(), "eq"),
            ("70c2", "sh graders/check.sh", "graders/check.sh", "exec node -C development -r eq graders/check.js\n".into(), "eq"),
            ("70g", "sh graders/check.sh", "graders/check.sh", "out=$(node -r eq graders/check.js) || exit 1\n".into(), "eq"),
            ("70h", "sh graders/check.sh", "graders/check.sh", "exec node --test --test-reporter=@r/eq graders/\n".into(), "@r/eq"),
            ("70i", "sh graders/check.sh", "graders/check.sh", "\\node -r eq graders/check.js\n".into(), "eq"),
            ("70j", "sh graders/check.sh", "graders/check.sh", "(node -r eq graders/check.js)\n".into(), "eq"),
            ("70d", "python3 graders/check.py", "graders/check.py", "import subprocess, sys\nsys.exit(subprocess.run([\"node\", \"-r\", \"eq\", \"graders/check.js\"]).returncode)\n".into(), "eq"),
            ("70f", "python3 graders/check.py", "graders/check.py", "import os, subprocess, sys\nos.environ[\"NODE_OPTIONS\"] = \"--require eq\"\nsys.exit(subprocess.run([\"node\", \"graders/check.js\"]).returncode)\n".into(), "eq"),
            ("70e", "node graders/run.js", "graders/run.js", run_js("spawnSync(\"node\", [\"-r\", \"eq\", __dirname + \"/check.js\"], { stdio: \"inherit\" })"), "eq"),
            ("70n", "node graders/run.js", "graders/run.js", run_js("spawnSync(process.execPath, [__dirname + \"/check.js\"], { stdio: \"inherit\", env: { ...process.env, NODE_OPTIONS: \"--require eq\" } })"), "eq"),
            // Review 37: a variable, a bash array, `NODE_OPTIONS` from a variable, Python
            // and JavaScript with one argument a line, `process.env.NODE_OPTIONS`, `fork`'s
            // `execArgv`, a list spread into the arguments, a wrapper function.
            ("80a", "sh graders/check.sh", "graders/check.sh", "OPTS=\"-r eq\"\nexec node $OPTS graders/check.js\n".into(), "eq"),
            ("80b", "bash graders/check.sh", "graders/check.sh", "args=(-r eq)\nexec node \"${args[@]}\" graders/check.js\n".into(), "eq"),
            ("80f", "sh graders/check.sh", "graders/check.sh", "PRE=\"--require eq\"\nexport NODE_OPTIONS=\"$PRE\"\nexec node graders/check.js\n".into(), "eq"),
            ("80i", "python3 graders/check.py", "graders/check.py", "import subprocess, sys\nsys.exit(\n    subprocess.run(\n        [\n            \"node\",\n            \"-r\",\n            \"eq\",\n            \"graders/check.js\",\n        ]\n    ).returncode\n)\n".into(), "eq"),
            ("80j", "python3 graders/check.py", "graders/check.py", "import subprocess, sys\npreload = [\"-r\", \"eq\"]\nsys.exit(subprocess.run([\"node\", *preload, \"graders/check.js\"]).returncode)\n".into(), "eq"),
            ("80l", "node graders/run.js", "graders/run.js", run_js("spawnSync(process.execPath, [\n  \"-r\",\n  \"eq\",\n  __dirname + \"/check.js\",\n], { stdio: \"inherit\" })"), "eq"),
            ("80m", "node graders/run.js", "graders/run.js", format!("process.env.NODE_OPTIONS = \"--require eq\";\n{}", run_js("spawnSync(process.execPath, [__dirname + \"/check.js\"], { stdio: \"inherit\" })")), "eq"),
            ("80n", "node graders/run.js", "graders/run.js", "const { fork } = require(\"child_process\");\nfork(__dirname + \"/check.js\", [], { execArgv: [\"-r\", \"eq\"] }).on(\"exit\", (c) => process.exit(c));\n".into(), "eq"),
            ("80p", "node graders/run.js", "graders/run.js", format!("const flags = [\"-r\", \"eq\"];\n{}", run_js("spawnSync(process.execPath, [...flags, __dirname + \"/check.js\"], { stdio: \"inherit\" })")), "eq"),
            ("80z", "sh graders/check.sh", "graders/check.sh", "run_node() { node \"$@\"; }\nrun_node -r eq graders/check.js\n".into(), "eq"),
        ];
        for (case, line, file, text, name) in cases {
            let files = [
                ("graders/package.json", "{}\n"),
                ("graders/check.js", GRADE),
                (file, text.as_str()),
            ];
            if !refused_at_load(case, line, &files, &format!("preloads `{name}`")) {
                return;
            }
        }
    }

    /// 51e, 51e2: `check: sh ci/check.sh` whose script runs `graders/grade.sh`: the box holds
    /// `ci/`, not `graders/`, so a trial can rewrite that grader. Gate cannot tell it from the
    /// agent's own program a grader script runs, so it warns, naming the file and the fix,
    /// however the script names it (review 37, 83b2, 83c, 83e: from its own folder, after a
    /// `cd`, without an extension); with the fix (the grader beside the script), gate holds
    /// it and the trial's rewrite wins nothing.
    #[test]
    fn rev37_51e_a_grader_a_script_runs_outside_the_held_folders_is_named_with_its_fix() {
        for script in [
            "exec sh graders/grade.sh\n",
            "here=$(dirname \"$0\")\nexec sh \"$here/../graders/grade.sh\"\n",
            "cd graders && exec sh ./grade.sh\n",
        ] {
            let f = fixture("sh ci/check.sh", "wrong");
            write_files(
                &f,
                &[
                    ("ci/check.sh", script),
                    ("graders/grade.sh", "grep -qx right result.txt\n"),
                ],
            );
            check(&f).code(0).stderr(
                predicate::str::contains("the grader file")
                    .and(predicate::str::contains("graders/grade.sh"))
                    .and(predicate::str::contains("which gate does not hold"))
                    .and(predicate::str::contains("move it beside")),
            );
            // The attack the warning is about: the trial rewrites the grader, and PASSes.
            write_files(
                &f,
                &[(
                    "agent.sh",
                    "echo wrong > result.txt\nprintf 'exit 0\\n' > graders/grade.sh\n",
                )],
            );
            assert_run_exits(&f, script, 0);
        }
        // Without an extension, not executable (83e).
        let f = fixture("sh ci/check.sh", "wrong");
        write_files(
            &f,
            &[
                ("ci/check.sh", "exec sh graders/grade2\n"),
                ("graders/grade2", "grep -qx right result.txt\n"),
            ],
        );
        check(&f)
            .code(0)
            .stderr(predicate::str::contains("graders/grade2"));
        // The fix: the grader beside the script. No warning, and no PASS for the rewrite.
        write_files(
            &f,
            &[
                ("ci/check.sh", "exec sh ci/grade.sh\n"),
                ("ci/grade.sh", "grep -qx right result.txt\n"),
                (
                    "agent.sh",
                    "echo wrong > result.txt\nprintf 'exit 0\\n' > ci/grade.sh\n",
                ),
            ],
        );
        check(&f)
            .code(0)
            .stderr(predicate::str::contains("which gate does not hold").not());
        let out = f.run(&[]).get_output().clone();
        assert_ne!(out.status.code(), Some(0), "51e2 held: PASS");
        assert_eq!(
            std::fs::read_to_string(f.path("ci/grade.sh")).unwrap(),
            "grep -qx right result.txt\n"
        );
    }

    /// 80r: inline code a grader script gives node (`node -e 'require("eq")…'`) resolves
    /// its packages from the folder node runs in: refused, naming the script.
    #[test]
    fn rev37_80r_inline_code_a_grader_script_gives_node_is_refused_when_it_requires_a_package() {
        let Some(f) = self_reference(
            &[
                ("graders/package.json", "{}\n"),
                (
                    "graders/check.sh",
                    "exec node -e 'const eq = require(\"eq\"); process.exit(eq(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim(), \"right\") ? 0 : 1)'\n",
                ),
            ],
            &[],
        ) else {
            return;
        };
        check(&f)
            .code(2)
            .stderr(predicate::str::contains("gives node inline code"));
    }

    /// Over-refusals of 4bfeb67 (review 37, 84a, 84c, 84d, 84f): another program's `-r` beside
    /// a variable named `node`, in a script and in Python; a data file given to the grader
    /// (`node graders/check.js graders/sample.txt`); a preload by a path the code builds
    /// (`"--require " + os.path.join(…)`). Each is accepted, and its check judges.
    #[test]
    fn rev37_honest_layouts_stay_accepted() {
        if !has("node") || !has("python3") {
            skip_or_fail(&current_test(), "node", "no node or python3 here");
            return;
        }
        let judge = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(got === (globalThis.want || \"right\") ? 0 : 1);\n";
        let cases: Vec<super::rev34::Case> = vec![
            (
                "84a",
                "sh graders/check.sh",
                vec![
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.sh",
                        "for node in a b; do echo \"$node\" -r 2 > /dev/null; done\nexec node graders/check.js\n".into(),
                    ),
                ],
            ),
            (
                "84c",
                "python3 graders/check.py",
                vec![
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.py",
                        "import subprocess, sys\nfor node in [\"a\"]:\n    subprocess.run([\"echo\", node, \"-r\", \"2\"], stdout=subprocess.DEVNULL)\nsys.exit(subprocess.run([\"node\", \"graders/check.js\"]).returncode)\n".into(),
                    ),
                ],
            ),
            (
                "84d",
                "sh graders/check.sh",
                vec![
                    ("package.json", "{\"name\":\"app\"}\n".into()),
                    ("graders/check.js", judge.into()),
                    ("graders/sample.txt", "const _ = require(\"lodash\");\n".into()),
                    (
                        "graders/check.sh",
                        "exec node graders/check.js graders/sample.txt\n".into(),
                    ),
                ],
            ),
            (
                "84f",
                "python3 graders/check.py",
                vec![
                    ("graders/setup.js", "globalThis.want = \"right\";\n".into()),
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.py",
                        "import os, subprocess, sys\nHERE = os.path.dirname(os.path.abspath(__file__))\nenv = dict(os.environ)\nenv[\"NODE_OPTIONS\"] = \"--require \" + os.path.join(HERE, \"setup.js\")\nsys.exit(subprocess.run([\"node\", \"graders/check.js\"], env=env).returncode)\n".into(),
                    ),
                ],
            ),
        ];
        for (case, line, files) in cases {
            super::rev34::accepted_and_judged(case, line, &files, "echo right > result.txt\n");
        }
    }

    /// The warning's honest neighbours: a grader script that runs the agent's own program
    /// is warned about (gate cannot tell), and one that reads data or runs only what gate
    /// holds is not.
    #[test]
    fn rev37_51e_a_script_reading_data_or_held_graders_is_not_warned_about() {
        let f = fixture("sh graders/check.sh", "right");
        write_files(
            &f,
            &[
                (
                    "graders/check.sh",
                    "sh graders/grade && diff -q result.txt graders/expected.txt\n",
                ),
                ("graders/expected.txt", "right\n"),
            ],
        );
        check(&f)
            .code(0)
            .stderr(predicate::str::contains("which gate does not hold").not());
        assert_run_exits(&f, "held graders", 0);
    }
}

/// Review 38: an independent attack on d50aa1d's reading of grader text.
mod rev38 {
    use super::rev34::{GRADE, refused_at_load};
    use super::*;

    /// 90c, 90g2, 90l, 90p: node by a variable that names it, arguments pushed on a list,
    /// `--experimental_loader`, an unset expansion before `-r`; 91b, 91e: node given code
    /// read from a file or piped in; 80c, 90m: arguments from `set --` or piped to `xargs
    /// node`; each resolves a package from the check's folder. Each PASSed a wrong answer
    /// on d50aa1d (80c and 90m on 828f11b too); now refused at load.
    #[test]
    fn rev38_90_91_more_spellings_of_a_preload_or_inline_code_are_refused() {
        let cases: Vec<(&str, &str, &str, String, &str)> = vec![
            ("90c", "sh graders/check.sh", "graders/check.sh", "NODE_BIN=$(command -v node)\nexec \"$NODE_BIN\" -r eq graders/check.js\n".into(), "preloads `eq`"),
            ("90g2", "node graders/run.js", "graders/run.js", "const { spawnSync } = require(\"child_process\");\nconst args = [];\nargs.push(\"-r\", \"eq\", __dirname + \"/check.js\");\nprocess.exit(spawnSync(\"node\", args, { stdio: \"inherit\" }).status);\n".into(), "preloads `eq`"),
            ("90l", "sh graders/check.sh", "graders/check.sh", "exec node --experimental_loader=eq graders/check.js\n".into(), "preloads `eq`"),
            ("90p", "sh graders/check.sh", "graders/check.sh", "exec node $NODE_ARGS -r eq graders/check.js\n".into(), "preloads `eq`"),
            ("91b", "sh graders/check.sh", "graders/check.sh", "exec node -e \"$(cat graders/inline.txt)\"\n".into(), "inline code"),
            ("91e", "sh graders/check.sh", "graders/check.sh", "cat graders/inline.txt | node\n".into(), "inline code"),
            ("80c", "sh graders/check.sh", "graders/check.sh", "set -- -r eq graders/check.js\nexec node \"$@\"\n".into(), "preloads `eq`"),
            ("90m", "sh graders/check.sh", "graders/check.sh", "printf '%s\\n' -r eq graders/check.js | xargs node\n".into(), "preloads `eq`"),
        ];
        for (case, line, file, text, says) in cases {
            let files = [
                ("graders/package.json", "{}\n"),
                ("graders/check.js", GRADE),
                ("graders/inline.txt", GRADE),
                (file, text.as_str()),
            ];
            if !refused_at_load(case, line, &files, says) {
                return;
            }
        }
    }

    /// Over-refusals of d50aa1d (review 38, 93a, 93c, 93d, 93i): `gpg --import` beside
    /// `NODE_OPTIONS`, `sort -r` after `node --version`, a required `.json` with a `"from"`
    /// key, a preload by a path under `$PWD`. Each is accepted, and its check judges.
    #[test]
    fn rev38_honest_layouts_stay_accepted() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(got === (globalThis.want || \"right\") ? 0 : 1);\n";
        let cases: Vec<super::rev34::Case> = vec![
            (
                "93a",
                "sh graders/check.sh",
                vec![
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.sh",
                        "unset NODE_OPTIONS\ntrue gpg --import graders/pub.asc\nexec node graders/check.js\n".into(),
                    ),
                ],
            ),
            (
                "93c",
                "sh graders/check.sh",
                vec![
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.sh",
                        "node --version > /dev/null; sort -r graders/check.js > /dev/null\nexec node graders/check.js\n".into(),
                    ),
                ],
            ),
            (
                "93d",
                "node graders/check.js",
                vec![
                    ("package.json", "{\"name\":\"app\"}\n".into()),
                    ("graders/cases.json", "{\"from\": \"x\", \"want\": \"right\"}\n".into()),
                    (
                        "graders/check.js",
                        format!("globalThis.want = require(\"./cases.json\").want;\n{judge}"),
                    ),
                ],
            ),
            (
                "93i",
                "sh graders/check.sh",
                vec![
                    ("graders/setup.js", "globalThis.want = \"right\";\n".into()),
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.sh",
                        "exec node -r \"$PWD/graders/setup.js\" graders/check.js\n".into(),
                    ),
                ],
            ),
        ];
        for (case, line, files) in cases {
            super::rev34::accepted_and_judged(case, line, &files, "echo right > result.txt\n");
        }
    }

    /// 94a, 94c, 94i, 94j: the unheld-program warning was silent for a glob, a sourced
    /// `.inc`, a `.sh.in` and a command substitution; it names each now.
    #[test]
    fn rev38_94_the_unheld_program_warning_reads_globs_and_other_names() {
        for (case, script, file) in [
            (
                "94a",
                "for f in graders/*.sh; do sh \"$f\"; done\n",
                "graders/grade.sh",
            ),
            ("94c", ". graders/grade.inc\n", "graders/grade.inc"),
            (
                "94i",
                "exec sh graders/grade.sh.in\n",
                "graders/grade.sh.in",
            ),
            (
                "94j",
                "r=$(sh graders/grade.sh) || exit 1\n",
                "graders/grade.sh",
            ),
        ] {
            let f = fixture("sh ci/check.sh", "wrong");
            write_files(
                &f,
                &[
                    ("ci/check.sh", script),
                    (file, "grep -qx right result.txt\n"),
                ],
            );
            let out = check(&f).get_output().clone();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("which gate does not hold") && stderr.contains(file),
                "{case}: {stderr}"
            );
        }
    }
}

/// Review 39: a short independent attack on 828f11b's reading of grader text.
mod rev39 {
    use super::rev34::{GRADE, refused_at_load};
    use super::*;

    /// 97f, 97q: code piped into `timeout 10 node`, and `NODE_OPTIONS` extended past `||`
    /// (a regression of 828f11b): each PASSed a wrong answer on 828f11b; refused now.
    #[test]
    fn rev39_97f_97q_piped_code_and_an_extended_node_options_are_refused() {
        let run_js = "const { spawnSync } = require(\"child_process\");\nconst r = spawnSync(process.execPath, [__dirname + \"/check.js\"], { stdio: \"inherit\", env: { ...process.env, NODE_OPTIONS: (process.env.NODE_OPTIONS || \"\") + \" --require eq\" } });\nprocess.exit(r.status);\n";
        for (case, line, file, text, says) in [
            (
                "97f",
                "sh graders/check.sh",
                "graders/check.sh",
                "cat graders/inline.txt | timeout 10 node\n",
                "inline code",
            ),
            (
                "97q",
                "node graders/run.js",
                "graders/run.js",
                run_js,
                "preloads `eq`",
            ),
        ] {
            let files = [
                ("graders/package.json", "{}\n"),
                ("graders/check.js", GRADE),
                ("graders/inline.txt", GRADE),
                (file, text),
            ];
            if !refused_at_load(case, line, &files, says) {
                return;
            }
        }
    }

    /// Over-refusals of 828f11b (review 39, 96g, 96d2, 96a): the answer piped into a held
    /// grader (`cat result.txt | node graders/check.js`), a preload by a path the shell
    /// builds (`"$(realpath …)"`), and one the Python code builds in a variable. Each is
    /// accepted, and its check judges.
    #[test]
    fn rev39_honest_layouts_stay_accepted() {
        if !has("node") || !has("python3") {
            skip_or_fail(&current_test(), "node", "no node or python3 here");
            return;
        }
        let stdin_judge = "const got = require(\"fs\").readFileSync(0, \"utf8\").trim();\nprocess.exit(got === \"right\" ? 0 : 1);\n";
        let judge = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(got === globalThis.want ? 0 : 1);\n";
        let cases: Vec<super::rev34::Case> = vec![
            (
                "96g",
                "sh graders/check.sh",
                vec![
                    ("graders/package.json", "{}\n".into()),
                    ("graders/check.js", stdin_judge.into()),
                    ("graders/check.sh", "cat result.txt | node graders/check.js\n".into()),
                ],
            ),
            (
                "96d2",
                "sh graders/check.sh",
                vec![
                    ("graders/setup.js", "globalThis.want = \"right\";\n".into()),
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.sh",
                        "exec node -r \"$(realpath graders/setup.js)\" graders/check.js\n".into(),
                    ),
                ],
            ),
            (
                "96a",
                "python3 graders/check.py",
                vec![
                    ("graders/setup.js", "globalThis.want = \"right\";\n".into()),
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.py",
                        "import os, subprocess, sys\nHERE = os.path.dirname(os.path.abspath(__file__))\nSETUP = os.path.join(HERE, \"setup.js\")\nsys.exit(subprocess.run([\"node\", \"-r\", SETUP, \"graders/check.js\"]).returncode)\n".into(),
                    ),
                ],
            ),
        ];
        for (case, line, files) in cases {
            super::rev34::accepted_and_judged(case, line, &files, "echo right > result.txt\n");
        }
    }
}

/// Review 40 (issue 29): review 39's open breaks of the grader-text reading, closed by a
/// word-level reading of preload options and two more starts of code from text.
mod rev40 {
    use super::rev34::{GRADE, refused_at_load, refused_until_the_graders_have_a_package_json};
    use super::*;

    /// 97c-97x, 80s, 90b: node's arguments built in pieces, each preloading `eq` by its
    /// name (which node resolves from the check's folder, where the trial's `package.json`
    /// names itself `eq`). Each PASSed a wrong answer on 8fccf0a; refused at load now.
    #[test]
    fn rev40_preloads_built_in_pieces_are_refused() {
        let js_run = |build: &str| {
            format!(
                "const {{ spawnSync }} = require(\"child_process\");\nconst path = require(\"path\");\n{build}\nprocess.exit(r.status);\n"
            )
        };
        let cases: Vec<(&str, &str, &str, String)> = vec![
            (
                "97c",
                "node graders/run.js",
                "graders/run.js",
                js_run(
                    "const args = [path.join(__dirname, \"check.js\")];\nargs.unshift(\"-r\", \"eq\");\nconst r = spawnSync(process.execPath, args, { stdio: \"inherit\" });",
                ),
            ),
            (
                "97i",
                "node graders/run.js",
                "graders/run.js",
                js_run(
                    "const r = spawnSync(process.argv.at(0), [\"-r\", \"eq\", path.join(__dirname, \"check.js\")], { stdio: \"inherit\" });",
                ),
            ),
            (
                "97u",
                "node graders/run.js",
                "graders/run.js",
                js_run(
                    "let r;\nfunction main() {\n  const flags = [\"-r\", \"eq\"];\n  r = spawnSync(process.execPath, [...flags, path.join(__dirname, \"check.js\")], { stdio: \"inherit\" });\n}\nmain();",
                ),
            ),
            (
                "97d",
                "python3 graders/check.py",
                "graders/check.py",
                "import subprocess, sys\ncmd = [\"node\", \"graders/check.js\"]\ncmd.insert(1, \"--require=eq\")\nsys.exit(subprocess.run(cmd).returncode)\n".into(),
            ),
            (
                "97x",
                "python3 graders/check.py",
                "graders/check.py",
                "import subprocess, sys\nPRELOAD: list[str] = [\"-r\", \"eq\"]\nsys.exit(subprocess.run([\"node\", *PRELOAD, \"graders/check.js\"]).returncode)\n".into(),
            ),
            (
                "80s",
                "python3 graders/check.py",
                "graders/check.py",
                "import json, subprocess, sys\ncmd = json.load(open(\"graders/cmd.json\"))[\"argv\"]\nsys.exit(subprocess.run(cmd).returncode)\n".into(),
            ),
            (
                "97h",
                "sh graders/check.sh",
                "graders/check.sh",
                "N=node\nRUN=$N\nexec $RUN -r eq graders/check.js\n".into(),
            ),
            (
                "97m",
                "bash graders/check.sh",
                "graders/check.sh",
                "NODE_FLAGS=()\nNODE_FLAGS+=(-r eq)\nexec node \"${NODE_FLAGS[@]}\" graders/check.js\n".into(),
            ),
            (
                "97m2",
                "bash graders/check.sh",
                "graders/check.sh",
                "OPTS=\"--no-warnings\"\nOPTS+=\" -r eq\"\nexec node $OPTS graders/check.js\n".into(),
            ),
            (
                "97o",
                "sh graders/check.sh",
                "graders/check.sh",
                "OPTS=\"\"\nOPTS=\"$OPTS -r eq\"\nexec node $OPTS graders/check.js\n".into(),
            ),
            (
                "97r",
                "bash graders/check.sh",
                "graders/check.sh",
                "run() {\n  local flags\n  flags=\"-r eq\"\n  node $flags graders/check.js\n}\nrun\n".into(),
            ),
            (
                "97w",
                "bash graders/check.sh",
                "graders/check.sh",
                "declare -a FLAGS=(-r eq)\nexec node \"${FLAGS[@]}\" graders/check.js\n".into(),
            ),
            (
                "90b",
                "sh graders/check.sh",
                "graders/check.sh",
                ". graders/env.sh\nexec node $NODE_FLAGS graders/check.js\n".into(),
            ),
        ];
        for (case, line, file, text) in &cases {
            let files = [
                ("graders/package.json", "{}\n"),
                ("graders/check.js", GRADE),
                (
                    "graders/cmd.json",
                    "{\"argv\": [\"node\", \"-r\", \"eq\", \"graders/check.js\"]}\n",
                ),
                ("graders/env.sh", "NODE_FLAGS=\"-r eq\"\n"),
                (*file, text.as_str()),
            ];
            if !refused_at_load(case, line, &files, "preloads `eq`") {
                return;
            }
        }
    }

    /// 97a, 97b: a grader reaches the `Function` constructor through `.constructor` and
    /// runs a prose file's text, which requires `eq`: every grader file is then held to the
    /// `package.json` rule. 97t: code given to node through a variable and `<<<`.
    #[test]
    fn rev40_97a_97b_97t_code_from_text_without_its_name_is_held() {
        let helper = "return process.mainModule.require(\"eq\")";
        let judge = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);";
        let load = "fsx.readFileSync(path.join(__dirname, \"helper.txt\"), \"utf8\")";
        for body in [
            // 97a: the async function's constructor, under another name.
            format!(
                "const build = (async () => {{}}).constructor;\nbuild({load})().then((eq) => {{\n{judge}\n}});\n"
            ),
            // 97b: an arrow's constructor, called at once.
            format!("const eq = (() => {{}}).constructor({load})();\n{judge}\n"),
        ] {
            let check = format!("const fsx = require(\"fs\"), path = require(\"path\");\n{body}");
            refused_until_the_graders_have_a_package_json(
                &[
                    ("graders/helper.txt", helper),
                    ("graders/check.js", &check),
                    ("graders/check.sh", "exec node graders/check.js\n"),
                ],
                &[],
            );
        }
        let inline = "const eq = require(\"eq\"); const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim(); process.exit(eq(got, \"right\") ? 0 : 1);";
        let script = format!("CODE='{inline}'\nN=node\n$N <<< \"$CODE\"\n");
        let files = [
            ("graders/package.json", "{}\n"),
            ("graders/check.js", GRADE),
            ("graders/check.sh", script.as_str()),
        ];
        refused_at_load("97t", "bash graders/check.sh", &files, "inline code");
    }

    /// 81a, 81c, 81e: a package loaded by a name no reading of the text sees (a module
    /// object's member by a computed key, `eval` of base64), and 81g, 80h2: a prose file
    /// node runs or reads as an env file through a variable (`node graders/$F.txt`,
    /// `--env-file=$F.txt` holding `NODE_OPTIONS="--require eq"`). Each PASSed a wrong
    /// answer on 8fccf0a.
    #[test]
    fn rev40_names_and_files_built_at_run_time_are_held() {
        let judge = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n";
        for head in [
            "const eq = module[\"re\" + \"quire\"](\"eq\");\n",
            "const load = process.mainModule[\"req\" + \"uire\"].bind(process.mainModule);\nconst eq = load(\"eq\");\n",
            "const eq = eval(Buffer.from(\"cmVxdWlyZSgiZXEiKQ==\", \"base64\").toString());\n",
        ] {
            let check = format!("{head}{judge}");
            refused_until_the_graders_have_a_package_json(
                &[
                    ("graders/check.js", &check),
                    ("graders/check.sh", "exec node graders/check.js\n"),
                ],
                &[],
            );
        }
        refused_until_the_graders_have_a_package_json(
            &[
                ("graders/check.txt", GRADE),
                ("graders/check.sh", "F=check\nexec node graders/$F.txt\n"),
            ],
            &[],
        );
        let files = [
            ("graders/package.json", "{}\n"),
            ("graders/check.js", GRADE),
            ("graders/env.txt", "NODE_OPTIONS=\"--require eq\"\n"),
            (
                "graders/check.sh",
                "F=graders/env\nexec node --env-file=$F.txt graders/check.js\n",
            ),
        ];
        refused_at_load("80h2", "sh graders/check.sh", &files, "preloads `eq`");
    }

    /// Review 41: every one of its 25 attacks had the trial write a `package.json` naming
    /// itself after the package a grader preloads, in a spelling no reading of the text
    /// finds (`-"r" eq`, `"--require=" + "eq"`, a value from a data file, …). Whatever the
    /// spelling, a check that finds the `name`, `exports` or `imports` of a `package.json`
    /// on node's way changed does not run: no verdict (exit 4), naming the file. Each
    /// PASSed a wrong answer on b010169.
    #[test]
    fn rev41_a_trial_that_writes_a_package_s_exports_gets_no_verdict() {
        if !has("python3") {
            skip_or_fail(&current_test(), "python3", "no python3 here");
            return;
        }
        for (case, line, file, text) in [
            (
                "100b",
                "sh graders/check.sh",
                "graders/check.sh",
                "exec node -\"r\" eq graders/check.js\n",
            ),
            (
                "100f",
                "python3 graders/check.py",
                "graders/check.py",
                "import subprocess, sys\nsys.exit(subprocess.run([\"node\", \"--require=\" + \"eq\", \"graders/check.js\"]).returncode)\n",
            ),
            (
                "100m",
                "python3 graders/check.py",
                "graders/check.py",
                "import subprocess, sys\npre = open(\"graders/preload.txt\").read().strip()\nsys.exit(subprocess.run([\"node\", \"-r\", pre, \"graders/check.js\"]).returncode)\n",
            ),
        ] {
            let files = [
                ("graders/package.json", "{}\n"),
                ("graders/check.js", super::rev34::GRADE),
                ("graders/preload.txt", "eq\n"),
                (file, text),
            ];
            let Some(f) = super::rev34::self_reference(&files, &[]) else {
                return;
            };
            std::fs::write(f.path("plan.yaml"), plan("", line)).unwrap();
            // The preloaded package is the trial's, and turns node's exit into success.
            write_files(
                &f,
                &[(
                    "agent.sh",
                    "echo wrong > result.txt\nprintf '{\"name\":\"eq\",\"exports\":\"./yes.js\"}' > package.json\necho 'process.on(\"exit\", () => { process.exitCode = 0; });' > yes.js\n",
                )],
            );
            check(&f).code(0);
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(
                said.contains("package.json` changed its `name`, `exports` or `imports`")
                    && said.contains("no verdict is published"),
                "{case}: {said}"
            );
        }
    }

    /// Review 42, 110i: a grader runs node from a folder below the check's (`cd app`),
    /// whose `package.json`, there from the start, the trial renames after the package the
    /// grader preloads. Watched too: no verdict (exit 4). PASSed a wrong answer on 71a6143.
    #[test]
    fn rev42_110i_a_package_json_below_the_check_s_folder_is_watched_too() {
        let judge = "const eq = require(\"eq\");\nconst got = require(\"fs\").readFileSync(require(\"path\").join(__dirname, \"..\", \"result.txt\"), \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n";
        let files = [
            ("graders/package.json", "{}\n"),
            ("graders/check.js", judge),
            ("app/package.json", "{\"name\": \"web\"}\n"),
            (
                "graders/check.sh",
                "cd app && exec node -\"r\" eq ../graders/check.js\n",
            ),
        ];
        let Some(f) = super::rev34::self_reference(&files, &[]) else {
            return;
        };
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\nprintf '{\"name\":\"eq\",\"exports\":\"./yes.js\"}' > app/package.json\necho 'process.on(\"exit\", () => { process.exitCode = 0; });' > app/yes.js\n",
            )],
        );
        check(&f).code(0);
        let out = f.command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(said.contains("app/package.json"), "{said}");
    }

    /// Review 46, a10, from a folder that exists at the start without a `package.json`
    /// (review 50): the trial writes one there, naming itself after the package the grader
    /// preloads. A folder's `package.json` is watched there or not. PASSed a wrong answer on
    /// 14e7fe3.
    #[test]
    fn rev50_a10_a_package_json_made_in_a_folder_below_that_had_none_gets_no_verdict() {
        let judge = "const eq = require(\"eq\");\nconst got = require(\"fs\").readFileSync(require(\"path\").join(__dirname, \"..\", \"result.txt\"), \"utf8\").trim();\nprocess.exit(eq(got, \"right\") ? 0 : 1);\n";
        let files = [
            ("graders/package.json", "{}\n"),
            ("graders/check.js", judge),
            ("app/index.js", "module.exports = 1;\n"),
            (
                "graders/check.sh",
                "cd app && exec node -\"r\" eq ../graders/check.js\n",
            ),
        ];
        let Some(f) = super::rev34::self_reference(&files, &[]) else {
            return;
        };
        write_files(
            &f,
            &[(
                "agent.sh",
                "echo wrong > result.txt\nprintf '{\"name\":\"eq\",\"exports\":\"./yes.js\"}' > app/package.json\necho 'process.on(\"exit\", () => { process.exitCode = 0; });' > app/yes.js\n",
            )],
        );
        check(&f).code(0);
        let out = f.command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(said.contains("app/package.json"), "{said}");
    }

    /// The wall compares what node resolves through, not the file: an agent's `npm
    /// install` rewrites the task's `package.json` (its dependencies), and an agent may
    /// create one without `exports` (`npm init -y`); the check runs and judges.
    #[test]
    fn rev41_an_agent_s_dependencies_in_package_json_stay_its_own() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "const got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(got === \"right\" ? 0 : 1);\n";
        for (case, before, agent) in [
            (
                "install",
                Some("{\"name\": \"app\", \"exports\": \"./index.js\", \"dependencies\": {}}\n"),
                "printf '{\"name\": \"app\", \"exports\": \"./index.js\", \"dependencies\": {\"left-pad\": \"1\"}}' > package.json\n",
            ),
            (
                "init",
                None,
                "printf '{\"name\": \"app\", \"version\": \"1.0.0\"}' > package.json\n",
            ),
        ] {
            let f = fixture("sh graders/check.sh", "wrong");
            let mut files = vec![
                ("graders/package.json", "{}\n"),
                ("graders/check.js", judge),
                ("graders/check.sh", "exec node graders/check.js\n"),
            ];
            if let Some(text) = before {
                files.push(("package.json", text));
            }
            write_files(&f, &files);
            write_files(
                &f,
                &[("agent.sh", &format!("echo wrong > result.txt\n{agent}"))],
            );
            check(&f).code(0);
            assert_run_exits(&f, case, 1);
            write_files(
                &f,
                &[("agent.sh", &format!("echo right > result.txt\n{agent}"))],
            );
            assert_run_exits(&f, case, 0);
        }
    }

    /// Over-refusals the word-level reading must not make (review 38, 93l; review 40):
    /// other programs' `-r` in a grader script that starts node (`[ -r f ]`, `grep -r`,
    /// `read -r`), and a JavaScript grader's own list that it never passes to a process.
    /// Each is accepted and its check judges.
    #[test]
    fn rev40_other_programs_options_stay_accepted() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "const args = [\"-r\", \"verbose\"];\nconst got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(got === \"right\" && args.length === 2 ? 0 : 1);\n";
        let deep = "function same(a, b) {\n  if (a === b) return true;\n  if (a.constructor !== b.constructor) return false;\n  return JSON.stringify(a) === JSON.stringify(b);\n}\nconst hooks = { ok: (s) => same(s, \"right\") };\nif (!(hooks.ok instanceof Function)) process.exit(2);\nconst got = require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim();\nprocess.exit(hooks.ok(got) ? 0 : 1);\n";
        let cases: Vec<super::rev34::Case> = vec![
            (
                "93l",
                "node graders/check.js",
                vec![("graders/check.js", judge.into())],
            ),
            // Review 41, 100aa, 100ab: a hand-written deep equality compares constructors,
            // and `instanceof Function` runs nothing.
            (
                "100aa",
                "sh graders/check.sh",
                vec![
                    ("graders/check.js", deep.into()),
                    ("graders/check.sh", "exec node graders/check.js\n".into()),
                ],
            ),
            // Review 41, 100ac-100ag: `declare -r`, a `case` pattern, `[[ … && -r f ]]`,
            // test cases of the agent's CLI in a data file beside the graders.
            (
                "100ac",
                "bash graders/check.sh",
                vec![
                    ("graders/check.js", judge.into()),
                    ("graders/cases.json", "[{\"args\": [\"-r\", \"src\"]}, {\"args\": [\"--require\", \"auth\"]}]\n".into()),
                    (
                        "graders/check.sh",
                        "declare -r GRADER=graders/check.js\ncase \"${1:-}\" in\n  -r) VERBOSE=1 ;;\nesac\nif [[ -f result.txt && -r graders/cases.json ]]; then\n  exec node \"$GRADER\"\nfi\nexit 1\n".into(),
                    ),
                ],
            ),
            (
                "shell",
                "sh graders/check.sh",
                vec![
                    ("graders/check.js", judge.into()),
                    (
                        "graders/check.sh",
                        "[ -r result.txt ] || exit 1\ngrep -r right result.txt >/dev/null || exit 1\nread -r first < result.txt\nexec node graders/check.js\n".into(),
                    ),
                ],
            ),
        ];
        for (case, line, files) in cases {
            super::rev34::accepted_and_judged(case, line, &files, "echo right > result.txt\n");
        }
    }

    /// Review 42, 110g-110h: a grader preloads a package of the task's `node_modules` with
    /// a spelling gate's reading of its text does not find (`-"r" eq/config`), and the trial
    /// rewrites that package (its file, or its `package.json`'s `exports`); or, where the
    /// task's folder had no `node_modules`, creates one that shadows the package above it.
    /// Each package file is compared before every check, whatever gate reads: no verdict
    /// (exit 4). 110g and 110h PASSed a wrong answer on c39d5a7.
    #[test]
    fn rev42_110g_110h_a_package_a_trial_rewrites_or_shadows_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let yes = "process.on(\"exit\", () => { process.exitCode = 0; });";
        let judge = "process.exit(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let eq = [
            (
                "package.json",
                "{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}\n",
            ),
            ("config.js", "/* loads .env */\n"),
        ];
        for (case, cwd, agent, file) in [
            (
                "110g",
                "",
                format!("echo wrong > result.txt\necho '{yes}' > node_modules/eq/config.js\n"),
                "node_modules/eq/config.js",
            ),
            (
                "110h",
                "",
                format!(
                    "echo wrong > result.txt\necho '{yes}' > node_modules/eq/evil.js\nprintf '{{\"name\":\"eq\",\"exports\":{{\"./config\":\"./evil.js\"}}}}' > node_modules/eq/package.json\n"
                ),
                "node_modules/eq",
            ),
            (
                "shadow",
                "app",
                format!(
                    "echo wrong > result.txt\nmkdir -p node_modules/eq\necho '{yes}' > node_modules/eq/config.js\n"
                ),
                "app/node_modules/eq",
            ),
        ] {
            let f = fixture("sh graders/check.sh", "wrong");
            let at = |p: &str| {
                if cwd.is_empty() {
                    p.to_string()
                } else {
                    format!("{cwd}/{p}")
                }
            };
            let mut files: Vec<(String, String)> = vec![
                ("graders/package.json".into(), "{}\n".into()),
                ("graders/check.js".into(), judge.into()),
                (
                    "graders/check.sh".into(),
                    "exec node -\"r\" eq/config \"$(dirname \"$0\")/check.js\"\n".into(),
                ),
                (at("agent.sh"), agent.clone()),
            ];
            // The package sits in the task's folder, or above it (outside the trials' reach)
            // for the shadowing case.
            files.extend(
                eq.iter()
                    .map(|(n, t)| (format!("node_modules/eq/{n}"), t.to_string())),
            );
            let files: Vec<(&str, &str)> = files
                .iter()
                .map(|(p, t)| (p.as_str(), t.as_str()))
                .collect();
            write_files(&f, &files);
            if !cwd.is_empty() {
                std::fs::create_dir_all(f.path(cwd)).unwrap();
                let line = "sh ../graders/check.sh";
                std::fs::write(
                    f.path("plan.yaml"),
                    plan(&format!("    cwd: {cwd}\n"), line),
                )
                .unwrap();
            }
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(
                said.contains(&format!("{file}` changed during the run"))
                    && said.contains("no verdict is published"),
                "{case}: {said}"
            );
        }
    }

    /// The packages wall leaves an agent's own installs alone: a new package (and its
    /// `.bin` link), the package manager's lock file and a tool's cache at the top of the
    /// `node_modules`, a `node_modules` of its own in a folder that had none, holding no
    /// package by a name found above it, and folders below it removes or renames. The check
    /// runs and judges both ways when the plan lets a trial install those two packages
    /// (`policy.sandbox.installs`); by default the install gets no verdict.
    #[test]
    fn rev42_an_agent_s_new_packages_lock_and_cache_stay_its_own() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "process.exit(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let install = "mkdir -p node_modules/left-pad node_modules/.bin node_modules/.cache/babel lib/node_modules/tiny\n\
             echo 'module.exports = 1' > node_modules/left-pad/index.js\n\
             ln -sf ../left-pad/index.js node_modules/.bin/left-pad\n\
             echo '{\"lockfileVersion\":3}' > node_modules/.package-lock.json\n\
             echo '{}' > node_modules/.cache/babel/x.json\n\
             echo 'module.exports = 2' > lib/node_modules/tiny/index.js\n\
             rm -rf coverage && mv src app\n";
        let setup = |answer: &str| {
            let f = fixture("sh graders/check.sh", answer);
            write_files(
                &f,
                &[
                    ("graders/package.json", "{}\n"),
                    ("graders/check.js", judge),
                    ("graders/check.sh", "exec node graders/check.js\n"),
                    ("node_modules/eq/index.js", "module.exports = 0\n"),
                    ("lib/package.json", "{\"name\":\"lib\"}\n"),
                    // Folders an agent removes or renames (review 44, h12-h19).
                    ("coverage/old/x.json", "{}\n"),
                    ("src/main.js", "\n"),
                ],
            );
            let agent = std::fs::read_to_string(f.path("agent.sh")).unwrap();
            write_files(&f, &[("agent.sh", &format!("{install}{agent}"))]);
            f
        };
        for (answer, code) in [("wrong", 1), ("right", 0)] {
            // Not listed in `policy.sandbox.installs`: no verdict, the reason named.
            let out = setup(answer).command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{answer}: {said}");
            assert!(said.contains("policy.sandbox.installs"), "{said}");
            let f = setup(answer);
            let_install(&f, "[left-pad, tiny]");
            let out = f.command(&[]).output().unwrap();
            assert_eq!(out.status.code(), Some(code), "{answer}: {}", both(&out));
        }
    }

    /// Review 43 (an independent attack on the packages wall at 8935246): 01, a trial that
    /// renames the check's folder aside, builds another with its own package, whose code puts
    /// the original back when the check exits; 04, 05, 22, a name added to a
    /// `node_modules` that shadows a package node found there or above it (in `app/`, in a
    /// package's own `node_modules`, `eq.js` beside `eq/`); 08, a `node_modules` created in a
    /// folder below the check's that had none. Each PASSed a wrong answer on 8935246; now no
    /// verdict (exit 4), the path named.
    #[test]
    fn rev43_a_folder_swapped_on_the_way_or_a_shadowing_name_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let yes = "process.on(\"exit\", () => { process.exitCode = 0; });";
        let judge = "const p = require(\"path\").join(__dirname, \"..\", \"result.txt\");\nprocess.exit(require(\"fs\").readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let eq_pkg = "{\"name\":\"eq\",\"main\":\"main.js\",\"exports\":{\".\":\"./main.js\",\"./config\":\"./config.js\"}}\n";
        let swap = "if [ ! -d .orig ]; then mv app .orig; mkdir -p app/node_modules/eq; cp .orig/package.json app/; cp .orig/node_modules/eq/package.json app/node_modules/eq/\n\
             cat > app/node_modules/eq/config.js <<'J'\n\
             const cp = require(\"child_process\"), path = require(\"path\");\n\
             process.on(\"exit\", () => { cp.execSync(\"rm -rf app && mv .orig app\", {cwd: path.resolve(__dirname, \"../../..\")}); process.exitCode = 0; });\n\
             J\nfi\n";
        let shadow = |at: &str| {
            format!(
                "mkdir -p {at}/eq\nprintf '{{\"name\":\"eq\",\"exports\":{{\"./config\":\"./config.js\"}}}}' > {at}/eq/package.json\necho '{yes}' > {at}/eq/config.js\n"
            )
        };
        // (case, the folder node runs from, the task's files, the agent, the path said)
        type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)], String, &'a str);
        let cases: [Case; 5] = [
            (
                "01",
                "app",
                &[
                    ("app/package.json", "{\"name\":\"web\"}\n"),
                    ("app/node_modules/eq/package.json", eq_pkg),
                    ("app/node_modules/eq/config.js", "/* */\n"),
                ],
                swap.to_string(),
                "app` changed during the run",
            ),
            (
                "04",
                "app",
                &[
                    ("app/package.json", "{\"name\":\"web\"}\n"),
                    ("app/node_modules/left-pad/index.js", "\n"),
                    ("node_modules/eq/package.json", eq_pkg),
                    ("node_modules/eq/config.js", "/* */\n"),
                ],
                shadow("app/node_modules"),
                "app/node_modules/eq` changed during the run",
            ),
            (
                "05",
                ".",
                &[
                    ("node_modules/eq/package.json", eq_pkg),
                    ("node_modules/eq/config.js", "require(\"dep\");\n"),
                    ("node_modules/eq/node_modules/ms/index.js", "\n"),
                    ("node_modules/dep/index.js", "\n"),
                ],
                format!(
                    "mkdir -p node_modules/eq/node_modules/dep\necho '{yes}' > node_modules/eq/node_modules/dep/index.js\n"
                ),
                "node_modules/eq/node_modules/dep` changed during the run",
            ),
            (
                "22",
                ".",
                &[
                    (
                        "node_modules/eq/package.json",
                        "{\"name\":\"eq\",\"main\":\"main.js\"}\n",
                    ),
                    ("node_modules/eq/main.js", "\n"),
                    ("node_modules/eq/config.js", "\n"),
                ],
                format!("echo '{yes}' > node_modules/eq.js\n"),
                "node_modules/eq.js` changed during the run",
            ),
            (
                "08",
                "src",
                &[
                    ("src/a.txt", "\n"),
                    ("node_modules/eq/package.json", eq_pkg),
                    ("node_modules/eq/config.js", "/* */\n"),
                ],
                shadow("src/node_modules"),
                "src/node_modules/eq` changed during the run",
            ),
        ];
        for (case, dir, layout, agent, said_path) in cases {
            let f = fixture("sh graders/check.sh", "wrong");
            // `eq` for 22 (no `exports`: `eq.js` is tried first), `eq/config` otherwise.
            let preload = if case == "22" { "eq" } else { "eq/config" };
            let check =
                format!("cd {dir} && exec node -\"r\" {preload} \"$OLDPWD/graders/check.js\"\n");
            let agent = format!("echo wrong > result.txt\n{agent}");
            let mut files = vec![
                ("graders/package.json", "{}\n"),
                ("graders/check.js", judge),
                ("graders/check.sh", check.as_str()),
                ("agent.sh", agent.as_str()),
            ];
            files.extend_from_slice(layout);
            write_files(&f, &files);
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(
                said.contains(said_path) && said.contains("no verdict is published"),
                "{case}: {said}"
            );
        }
    }

    /// Review 43, 16: a trial rewrites a package, then the run is killed; `--resume` took
    /// what it found as the run's start and PASSed a wrong answer. A package file (or a
    /// watched `package.json`) written after the ledger's start refuses the resume (exit 4).
    #[test]
    fn rev43_16_resume_does_not_trust_a_package_written_after_the_run_started() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let yes = "process.on(\"exit\", () => { process.exitCode = 0; });";
        let judge = "process.exit(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let f = fixture("sh graders/check.sh", "wrong");
        std::fs::write(
            f.path("plan.yaml"),
            plan("", "sh graders/check.sh").replace("n: 2", "n: 3"),
        )
        .unwrap();
        let agent = format!(
            "echo wrong > result.txt\nif [ ! -e .hung ]; then touch .hung; echo '{yes}' > node_modules/eq/config.js; touch .written; sleep 60; fi\n"
        );
        write_files(
            &f,
            &[
                ("graders/package.json", "{}\n"),
                ("graders/check.js", judge),
                (
                    "graders/check.sh",
                    "exec node -\"r\" eq/config graders/check.js\n",
                ),
                (
                    "node_modules/eq/package.json",
                    "{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}\n",
                ),
                ("node_modules/eq/config.js", "/* */\n"),
                ("agent.sh", &agent),
            ],
        );
        // Older than the second gate allows for the kernel's coarse clock (`after`).
        std::thread::sleep(std::time::Duration::from_millis(1100));
        let mut child = f
            .std_command(&[])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let started = std::time::Instant::now();
        while !f.path(".written").exists() {
            assert!(
                started.elapsed() < std::time::Duration::from_secs(60),
                "no write"
            );
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        child.kill().unwrap();
        child.wait().unwrap();
        let out = f.command(&["--resume"]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(
            said.contains("node_modules/eq/config.js` was written after the run started")
                && said.contains("no trial was run"),
            "{said}"
        );
    }

    /// Past the bound of the folders read below a check's folder, `gate run` says that the
    /// `package.json` files and `node_modules` there are not watched (it said nothing).
    #[test]
    fn a_check_folder_past_the_bound_of_entries_read_is_warned_about() {
        let f = fixture("sh graders/grade", "right");
        let big = f.path("data/big");
        std::fs::create_dir_all(&big).unwrap();
        for i in 0..100_001 {
            std::fs::File::create(big.join(i.to_string())).unwrap();
        }
        let out = f.command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(0), "{said}");
        assert!(
            said.contains("hold more than 100000 entries outside `node_modules` and `.git`: the `package.json` files and `node_modules` folders node may load from there are watched up to that many; a change a trial makes past them is not seen before a check"),
            "{said}"
        );
    }

    /// Review 45 (an independent attack on 6362a15): in a later trial, a folder below the
    /// check's that node runs from is replaced by a link into a package folder the trial
    /// staged (01b), or, removed and made again in one trial, is given a `node_modules` in
    /// the next (03): the watch was on the old folder, and the planted code removed the
    /// link before the end. Both PASSed a wrong answer on 6362a15; now no verdict (exit 4).
    #[test]
    fn rev45_a_folder_below_relinked_or_made_again_in_a_later_trial_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "const p = require(\"path\").join(__dirname, \"..\", \"result.txt\");\nprocess.exit(require(\"fs\").readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let eq = "printf '{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}'";
        for (case, later, first) in [
            (
                "01b",
                format!(
                    "mkdir -p node_modules/zz/node_modules/eq\n{eq} > node_modules/zz/node_modules/eq/package.json\n\
                     echo 'require(\"fs\").unlinkSync(require(\"path\").resolve(__dirname, \"../../../..\", \"src\")); process.exit(0);' > node_modules/zz/node_modules/eq/config.js\n\
                     rm -rf src; ln -s node_modules/zz src\n"
                ),
                "",
            ),
            (
                "03",
                format!(
                    "mkdir -p src/node_modules/eq\n{eq} > src/node_modules/eq/package.json\n\
                     echo 'process.exit(0);' > src/node_modules/eq/config.js\n"
                ),
                "rm -rf src; mkdir src\n",
            ),
        ] {
            let f = fixture("sh graders/check.sh", "wrong");
            std::fs::write(
                f.path("plan.yaml"),
                plan("", "sh graders/check.sh").replace("n: 2, c: 0", "n: 3, c: 1"),
            )
            .unwrap();
            let agent = format!(
                "echo wrong > result.txt\nif [ -e .t1 ]; then\n{later}else touch .t1; {first}fi\n"
            );
            write_files(
                &f,
                &[
                    ("graders/package.json", "{}\n"),
                    ("graders/check.js", judge),
                    (
                        "graders/check.sh",
                        "cd src && exec node -\"r\" eq/config \"$OLDPWD/graders/check.js\"\n",
                    ),
                    (
                        "node_modules/eq/package.json",
                        "{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}\n",
                    ),
                    ("node_modules/eq/config.js", "/* */\n"),
                    ("src/a.txt", "\n"),
                    ("agent.sh", &agent),
                ],
            );
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            // Since review 50 the configuration wall's walk may see the swap first (01b:
            // `src` now a link).
            assert!(
                said.contains("src/node_modules/eq` changed during the run")
                    || said.contains(
                        "src` is a link to a folder that appeared, went, or was re-pointed"
                    ),
                "{case}: {said}"
            );
        }
    }

    /// Reviews 42 (110t) and 43 (03b), open until review 46: with `policy.jobs: 2`, one
    /// trial's agent plants a package (a `node_modules`, or a `package.json` that names
    /// itself after the package) just after the other trial's check has looked, and takes it
    /// away before the next look. Both PASSed a wrong answer (one trial of two passing, `c:
    /// 1`). A check whose packages the looks guard now runs while no other trial runs: the
    /// agent's change is seen, or is gone before the check starts.
    #[test]
    fn rev46_03b_110t_a_package_planted_during_another_trial_s_check_is_not_loaded() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "const p = require(\"path\").join(__dirname, \"..\", \"result.txt\");\nprocess.exit(require(\"fs\").readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let eq = "{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}";
        for (case, plant, take_away) in [
            (
                "03b",
                format!(
                    "mkdir -p src/node_modules/eq\nprintf '%s' '{eq}' > src/node_modules/eq/package.json\n\
                     echo 'process.exit(0);' > src/node_modules/eq/config.js\n"
                ),
                "rm -rf src/node_modules\n",
            ),
            (
                "110t",
                "cp src/package.json .keep\n\
                 printf '%s' '{\"name\":\"eq\",\"exports\":{\"./config\":\"./yes.js\"}}' > src/package.json\n\
                 echo 'process.exit(0);' > src/yes.js\n"
                    .to_string(),
                "cat .keep > src/package.json\n",
            ),
        ] {
            let f = fixture("sh graders/check.sh", "wrong");
            std::fs::write(
                f.path("plan.yaml"),
                plan("", "sh graders/check.sh").replace("n: 2, c: 0}}", "n: 2, c: 1}}\npolicy: {jobs: 2}"),
            )
            .unwrap();
            // The first agent ends at once; the second plants while the first one's check
            // waits, and takes it away after that check's node has loaded it.
            let agent = format!(
                "echo wrong > result.txt\nmkdir .first 2>/dev/null && exit 0\nsleep 0.5\n{plant}sleep 3\n{take_away}"
            );
            write_files(
                &f,
                &[
                    ("graders/package.json", "{}\n"),
                    ("graders/check.js", judge),
                    (
                        "graders/check.sh",
                        "sleep 1.5; cd src && exec node -\"r\" eq/config \"$OLDPWD/graders/check.js\"\n",
                    ),
                    ("node_modules/eq/package.json", &format!("{eq}\n")),
                    ("node_modules/eq/config.js", "/* */\n"),
                    ("src/package.json", "{\"name\":\"web\"}\n"),
                    ("agent.sh", &agent),
                ],
            );
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(1), "{case}: {said}");
            assert!(said.contains("FAIL"), "{case}: {said}");
        }
    }

    /// Review 46, a01-a05, a28: a name in front of a package that gate's name rule missed:
    /// `eq.js.js` for a package named `eq.js` (node tries the name with `.js` before the
    /// folder), `eq.cjs` (a hook such as `@babel/register` adds the extension), and a
    /// package node found only in `NODE_PATH` or `$HOME/.node_modules`, shadowed by one the
    /// trial installs in the task's `node_modules`. Each PASSed a wrong answer on 8f2de3f.
    #[test]
    fn rev46_a01_a05_a28_a_name_in_front_of_a_package_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "const p = require(\"path\").join(__dirname, \"..\", \"result.txt\");\nprocess.exit(require(\"fs\").readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let yes = "process.on(\"exit\", () => { process.exitCode = 0; });";
        let eq = "{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}";
        let global = tempfile::tempdir().unwrap();
        let g = global.path();
        for at in ["global/eq", "home/.node_modules/eq"] {
            std::fs::create_dir_all(g.join(at)).unwrap();
            std::fs::write(g.join(at).join("package.json"), eq).unwrap();
            std::fs::write(g.join(at).join("config.js"), "/* */\n").unwrap();
        }
        let plant = format!(
            "mkdir -p node_modules/eq && printf '%s' '{eq}' > node_modules/eq/package.json && echo '{yes}' > node_modules/eq/config.js"
        );
        // (case, preload, the task's packages, what the trial adds, gate's environment)
        type Case<'a> = (
            &'a str,
            &'a str,
            Vec<(&'a str, &'a str)>,
            String,
            Vec<(&'a str, std::path::PathBuf)>,
        );
        let cases: Vec<Case> = vec![
            (
                "a01",
                "eq.js",
                vec![
                    (
                        "node_modules/eq.js/package.json",
                        "{\"name\":\"eq.js\",\"main\":\"index.js\"}\n",
                    ),
                    ("node_modules/eq.js/index.js", "/* */\n"),
                ],
                format!("echo '{yes}' > node_modules/eq.js.js"),
                vec![],
            ),
            (
                "a28",
                "eq",
                vec![
                    (
                        "node_modules/eq/package.json",
                        "{\"name\":\"eq\",\"main\":\"index.js\"}\n",
                    ),
                    ("node_modules/eq/index.js", "/* */\n"),
                ],
                format!("echo '{yes}' > node_modules/eq.cjs"),
                vec![],
            ),
            (
                "a04",
                "eq/config",
                vec![],
                plant.clone(),
                vec![("NODE_PATH", g.join("global"))],
            ),
            (
                "a05",
                "eq/config",
                vec![],
                plant.clone(),
                vec![("HOME", g.join("home"))],
            ),
        ];
        for (case, preload, layout, trick, env) in cases {
            let f = fixture("sh graders/check.sh", "wrong");
            let check = format!("exec node -\"r\" {preload} graders/check.js\n");
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            let mut files = vec![
                ("graders/package.json", "{}\n"),
                ("graders/check.js", judge),
                ("graders/check.sh", check.as_str()),
                ("agent.sh", agent.as_str()),
            ];
            files.extend(layout);
            write_files(&f, &files);
            let out = f.command(&[]).envs(env).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(
                said.contains("changed during the run") && said.contains("no verdict is published"),
                "{case}: {said}"
            );
        }
    }

    /// Review 46, a15, a22: a tool the check runs keeps a cache of code it trusts in
    /// `$TMPDIR` (jest's transforms, tsx's), and the check shared the trial's `TMPDIR`: the
    /// trial ran the grader once itself, then rewrote the cached test to pass. Since then a
    /// check has a `TMPDIR` of its own, fresh and empty. Each PASSed a wrong answer on
    /// 8f2de3f. (The shell form stands for any such tool; review 46's jest 29 and tsx cases
    /// are in its notes.)
    #[test]
    fn rev46_a15_a22_a_cache_the_trial_leaves_in_its_tmpdir_does_not_reach_the_check() {
        let f = fixture("sh graders/check.sh", "wrong");
        write_files(
            &f,
            &[
                (
                    "graders/check.sh",
                    "c=\"$TMPDIR/grade-cache.sh\"\n[ -f \"$c\" ] || printf 'grep -qx right result.txt\\n' > \"$c\"\n. \"$c\"\n",
                ),
                (
                    "agent.sh",
                    "echo wrong > result.txt\necho 'true' > \"$TMPDIR/grade-cache.sh\"\n",
                ),
            ],
        );
        assert_run_exits(&f, "a shell grader's cache", 1);
    }

    /// Review 46, a06, a07: `NODE_PATH` into the task's folder, or `NODE_OPTIONS=--require
    /// ./tools/trace.js` (or, review 48, an activated `.venv/bin` on `PATH`), set in gate's
    /// own environment: the check inherited
    /// it and loaded what the trial wrote there (a PASS of a wrong answer on 8f2de3f). Such
    /// an entry is refused at load, as in the plan's `env:`; an option that loads nothing
    /// (`--max-old-space-size`) and a folder outside the trials' stay accepted.
    #[test]
    fn rev46_a06_a07_a_search_path_in_gate_s_environment_into_the_task_is_refused() {
        let f = fixture("sh graders/grade", "wrong");
        let vendor = f.path("vendor").display().to_string();
        // An activated virtual environment in the project (review 48: its `python3`
        // replaced by the trial PASSed a wrong answer on 8f2de3f).
        let venv = format!(
            "{}:{}",
            f.path(".venv/bin").display(),
            std::env::var("PATH").unwrap_or_default()
        );
        for (name, value, refused) in [
            (
                "NODE_OPTIONS",
                "--require ./tools/trace.js".to_string(),
                true,
            ),
            ("NODE_PATH", vendor, true),
            ("PATH", venv, true),
            (
                "NODE_OPTIONS",
                "--max-old-space-size=4096".to_string(),
                false,
            ),
            ("NODE_PATH", "/usr/lib/node_modules".to_string(), false),
        ] {
            let out = gate()
                .current_dir(f.dir.path())
                .args(["check", "plan.yaml"])
                .env(name, &value)
                .output()
                .unwrap();
            let said = both(&out);
            if refused {
                assert_eq!(out.status.code(), Some(2), "{name}={value}: {said}");
                assert!(
                    said.contains(&format!("`{name}` in gate's environment has entry")),
                    "{name}={value}: {said}"
                );
                assert_eq!(
                    said.contains("deactivate a virtual environment"),
                    name == "PATH",
                    "{said}"
                );
            } else {
                assert_eq!(out.status.code(), Some(0), "{name}={value}: {said}");
            }
        }
    }
}

/// Review 50: the configuration a node check's tools read from the folder they run in
/// (`.env`, `tsconfig.json`, `babel.config.js`, `config/`, `.mocharc.js`, `.npmrc`), a
/// package manager script's `scripts`, and a new name in `node_modules/.bin` that a check
/// runs: a trial that writes one gets no verdict; an agent's own install, and any of these
/// files under a Python check, get theirs.
mod rev50 {
    use super::*;

    /// A grader that exits 0 on `right` in `result.txt`.
    const JUDGE: &str = "const p = require(\"path\").join(__dirname, \"..\", \"result.txt\");\nprocess.exit(require(\"fs\").readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
    /// What a trial's planted code does: the check exits 0 whatever it found.
    const YES: &str = "process.on(\"exit\", () => { process.exitCode = 0; });";

    /// A fake tool, `cfgtool`, that reads its configuration from the folder it runs in as
    /// the real tools do (the wall reads no tool's code, so a fake that reads the file is a
    /// fair test): a `.js` file is code it runs (babel.config.js, .mocharc.js), `.env` is
    /// `NAME=value` lines (dotenv; `NODE_OPTIONS` reaches the node the grader starts), a
    /// JSON file's `require` (mocha's) or `compilerOptions.paths` (tsx's) names code it
    /// loads, and `config/default.json` is node-config's.
    const TOOL: &str = r#"const fs = require("fs"), path = require("path");
exports.load = (name) => {
  const at = path.resolve(process.cwd(), name);
  if (!fs.existsSync(at)) return;
  if (name.endsWith(".js")) return require(at);
  const text = fs.readFileSync(at, "utf8");
  if (name === ".env") {
    for (const l of text.split("\n")) { const m = l.match(/^(\w+)=(.*)$/); if (m) process.env[m[1]] = m[2]; }
    return;
  }
  const v = JSON.parse(text);
  const paths = (v.compilerOptions || {}).paths || {};
  for (const k of Object.keys(paths)) require(path.resolve(process.cwd(), paths[k][0]));
  if (v.require) require(path.resolve(process.cwd(), v.require));
};
"#;

    /// Review 46, a20, a24-a27: each PASSed a wrong answer on a8fb0d4 (the check ran the
    /// trial's code through the configuration it wrote).
    #[test]
    fn rev50_a20_a24_a27_a_tool_s_configuration_a_trial_writes_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let evil = format!("echo '{YES}' > evil.js");
        // (case, the configuration the grader's tool reads, what the trial writes there)
        let cases = [
            (
                "a20 .env",
                ".env",
                "printf 'NODE_OPTIONS=--require ./evil.js\\n' > .env",
            ),
            (
                "a24 tsconfig.json",
                "tsconfig.json",
                "echo '{\"compilerOptions\":{\"paths\":{\"judge\":[\"./evil.js\"]}}}' > tsconfig.json",
            ),
            (
                "a25 babel.config.js",
                "babel.config.js",
                "echo 'require(\"./evil.js\")' > babel.config.js",
            ),
            (
                "a26 config/",
                "config/default.json",
                "mkdir -p config && echo '{\"require\":\"./evil.js\"}' > config/default.json",
            ),
            (
                "a27 .mocharc.js",
                ".mocharc.js",
                "echo 'require(\"./evil.js\")' > .mocharc.js",
            ),
        ];
        for (case, name, trick) in cases {
            // The grader loads its tool's configuration, then judges in a child node (which
            // gets the environment `.env` set).
            let check = format!(
                "require(\"cfgtool\").load({name:?});\nconst r = require(\"child_process\").spawnSync(process.execPath, [require(\"path\").join(__dirname, \"judge.js\")], {{ stdio: \"inherit\" }});\nprocess.exit(r.status);\n"
            );
            let setup = |agent: &str| {
                let f = fixture("node graders/check.js", "wrong");
                write_files(
                    &f,
                    &[
                        ("graders/package.json", "{}\n"),
                        ("graders/judge.js", JUDGE),
                        ("graders/check.js", &check),
                        (
                            "node_modules/cfgtool/package.json",
                            "{\"name\":\"cfgtool\",\"main\":\"index.js\"}\n",
                        ),
                        ("node_modules/cfgtool/index.js", TOOL),
                        ("agent.sh", agent),
                    ],
                );
                f
            };
            let f = setup(&format!("echo wrong > result.txt\n{evil}\n{trick}\n"));
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(
                said.contains("reads it as configuration")
                    && said.contains(name.split('/').next().unwrap()),
                "{case}: {said}"
            );
            // Without the trick, the same wrong answer FAILs: the grader is honest.
            let f = setup("echo wrong > result.txt\n");
            let out = f.command(&[]).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(1),
                "{case} (control): {}",
                both(&out)
            );
        }
    }

    /// Review 46, a17 and review 48, c06 (`.npmrc`'s `node-options` under npm), and review
    /// 42, 110l, 110m (`scripts.test` rewritten to `exit 0`), under `check: npm test`: each
    /// PASSed a wrong answer on a8fb0d4.
    #[test]
    fn rev50_a17_c06_110l_npm_test_s_npmrc_or_script_a_trial_writes_gets_no_verdict() {
        if !has("npm") {
            skip_or_fail(&current_test(), "npm", "no npm here");
            return;
        }
        let manifest = "{\"name\":\"app\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node graders/check.js\"}}\n";
        let cases = [
            (
                "a17 .npmrc",
                format!(
                    "echo '{YES}' > evil.js\necho \"node-options=--require $PWD/evil.js\" > .npmrc"
                ),
                "reads it as configuration",
            ),
            (
                "110l scripts",
                "echo '{\"name\":\"app\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"exit 0\"}}' > package.json".to_string(),
                "changed its `scripts`",
            ),
        ];
        for (case, trick, why) in cases {
            let f = fixture("npm test", "wrong");
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    ("package.json", manifest),
                    ("graders/check.js", JUDGE),
                    ("agent.sh", &agent),
                ],
            );
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(said.contains(why), "{case}: {said}");
        }
    }

    /// Review 46, a18: `npx --no-install eq-cli` run from a folder (`app/`) whose own
    /// `node_modules` did not exist when the run started: npx found `eq-cli` in the
    /// task's `node_modules/.bin`, and the trial adds `app/node_modules/.bin/eq-cli` in front
    /// of it (a PASS of a wrong answer on a8fb0d4). Also a18b (no launcher: the grader puts
    /// the `.bin` folders on `PATH` as npm's scripts do): the name was in a `.bin` above.
    #[test]
    fn rev50_a18_a18b_a_new_bin_name_a_check_runs_gets_no_verdict() {
        if !has("npx") {
            skip_or_fail(&current_test(), "npx", "no npx here");
            return;
        }
        let cli = "#!/usr/bin/env node\nprocess.exit(require(\"fs\").readFileSync(\"../result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let plant = "mkdir -p app/node_modules/.bin && printf '#!/bin/sh\\nexit 0\\n' > app/node_modules/.bin/eq-cli && chmod +x app/node_modules/.bin/eq-cli";
        for (case, grader) in [
            ("a18", "cd app && exec npx --no-install eq-cli\n"),
            (
                "a18b",
                "cd app && export PATH=\"$PWD/node_modules/.bin:$PWD/../node_modules/.bin:$PATH\" && exec eq-cli\n",
            ),
        ] {
            let setup = |agent: &str| {
                let f = fixture("sh graders/check.sh", "wrong");
                write_files(
                    &f,
                    &[
                        ("package.json", "{\"name\":\"t\",\"version\":\"1.0.0\"}\n"),
                        (
                            "app/package.json",
                            "{\"name\":\"app\",\"version\":\"1.0.0\"}\n",
                        ),
                        (
                            "node_modules/eq-cli/package.json",
                            "{\"name\":\"eq-cli\",\"version\":\"1.0.0\",\"bin\":{\"eq-cli\":\"cli.js\"}}\n",
                        ),
                        ("node_modules/eq-cli/cli.js", cli),
                        ("graders/check.sh", grader),
                        ("agent.sh", agent),
                    ],
                );
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(
                    f.path("node_modules/eq-cli/cli.js"),
                    std::fs::Permissions::from_mode(0o755),
                )
                .unwrap();
                std::fs::create_dir_all(f.path("node_modules/.bin")).unwrap();
                std::os::unix::fs::symlink("../eq-cli/cli.js", f.path("node_modules/.bin/eq-cli"))
                    .unwrap();
                f
            };
            let f = setup(&format!("echo wrong > result.txt\n{plant}\n"));
            let out = f.command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(said.contains(".bin/eq-cli"), "{case}: {said}");
            // Without the plant, the wrong answer FAILs.
            let f = setup("echo wrong > result.txt\n");
            let out = f.command(&[]).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(1),
                "{case} (control): {}",
                both(&out)
            );
        }
    }

    /// Honest: under `check: npm test`, an agent that writes its answer and does what an
    /// `npm install` does (a new package, its new `.bin` name no check runs, `dependencies`
    /// added to `package.json`, a `package-lock.json`) gets its verdict: PASS for the right
    /// answer, FAIL for the wrong one.
    #[test]
    fn rev50_an_agent_s_install_under_npm_test_keeps_its_verdict() {
        if !has("npm") {
            skip_or_fail(&current_test(), "npm", "no npm here");
            return;
        }
        let install = "mkdir -p node_modules/left-pad node_modules/.bin\necho '{\"name\":\"left-pad\",\"version\":\"1.0.0\",\"bin\":{\"left-pad\":\"cli.js\"}}' > node_modules/left-pad/package.json\necho 'module.exports = (s) => s;' > node_modules/left-pad/cli.js\nln -s ../left-pad/cli.js node_modules/.bin/left-pad\necho '{\"name\":\"app\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node graders/check.js\"},\"dependencies\":{\"left-pad\":\"^1.0.0\"}}' > package.json\necho '{}' > package-lock.json\n";
        for (answer, want) in [("right", 0), ("wrong", 1)] {
            let f = fixture("npm test", answer);
            let agent = format!("echo {answer} > result.txt\n{install}");
            write_files(
                &f,
                &[
                    (
                        "package.json",
                        "{\"name\":\"app\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node graders/check.js\"}}\n",
                    ),
                    ("node_modules/eq/package.json", "{\"name\":\"eq\"}\n"),
                    ("node_modules/eq/index.js", "module.exports = 1;\n"),
                    ("graders/check.js", JUDGE),
                    ("agent.sh", &agent),
                ],
            );
            let out = f.command(&[]).output().unwrap();
            assert_eq!(out.status.code(), Some(want), "{answer}: {}", both(&out));
        }
    }

    /// Honest: a Python check reads none of these files, so an agent that writes them (a
    /// TypeScript task's `tsconfig.json`, a `.env`, an `.npmrc`) keeps its verdict.
    #[test]
    fn rev50_a_python_check_is_not_held_to_node_s_configuration() {
        for (answer, want) in [("right", 0), ("wrong", 1)] {
            let f = fixture("python3 graders/check.py", answer);
            let agent = format!(
                "echo {answer} > result.txt\necho '{{}}' > tsconfig.json\necho 'A=1' > .env\necho 'x=1' > .npmrc\nmkdir -p config && echo '{{}}' > config/default.json\n"
            );
            write_files(
                &f,
                &[
                    ("tsconfig.json", "{\"compilerOptions\":{}}\n"),
                    (
                        "graders/check.py",
                        "import sys\nsys.exit(0 if open('result.txt').read().strip() == 'right' else 1)\n",
                    ),
                    ("agent.sh", &agent),
                ],
            );
            let out = f.command(&[]).output().unwrap();
            assert_eq!(out.status.code(), Some(want), "{answer}: {}", both(&out));
        }
    }
}

/// Review 50: a check's tool caches are its own, npm's options in gate's environment, and
/// node run from a folder a grader makes (review 46, a09, a10, a16, a21).
mod rev50_env {
    use super::*;

    /// Review 46, a16 (and a21, npx's cache): a tool that caches the code it compiles
    /// (`@babel/register`: `BABEL_CACHE_PATH`, else `node_modules/.cache/@babel/register/
    /// .babel.json` in the folder it runs in) runs a cached entry in place of the grader.
    /// The trial plants an entry for the grader that exits 0: a PASS of a wrong answer on
    /// a8fb0d4. The check's caches are now in its own fresh `TMPDIR`.
    #[test]
    fn rev50_a16_a_compiled_grader_the_trial_caches_is_not_what_the_check_runs() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let f = fixture("node graders/check.js", "wrong");
        // A tool emulating @babel/register's cache, installed outside the task and loaded
        // by its path: like a real one, its code is not among the graders' files gate
        // reads (which would take its compiling for code that may load any package, and
        // hold the task's `node_modules` read-only).
        let register = r#"const fs = require("fs"), path = require("path");
const cache = process.env.BABEL_CACHE_PATH
  || path.join(process.cwd(), "node_modules/.cache/@babel/register/.babel.json");
module.exports = (file) => {
  let data = {};
  try { data = JSON.parse(fs.readFileSync(cache, "utf8")); } catch {}
  let code = data[file];
  if (code === undefined) {
    code = data[file] = fs.readFileSync(file, "utf8");
    try { fs.mkdirSync(path.dirname(cache), { recursive: true }); fs.writeFileSync(cache, JSON.stringify(data)); } catch {}
  }
  new Function("fs", "path", code)(fs, path);
};
"#;
        let tools = tempfile::tempdir().unwrap();
        let tool = tools.path().join("register.js");
        std::fs::write(&tool, register).unwrap();
        let judge = "const p = path.join(process.cwd(), \"result.txt\");\nprocess.exit(fs.readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        write_files(
            &f,
            &[
                ("graders/package.json", "{}\n"),
                (
                    "graders/check.js",
                    &format!(
                        "require({:?})(require(\"path\").join(__dirname, \"judge.js\"));\n",
                        tool.display().to_string()
                    ),
                ),
                ("graders/judge.js", judge),
                // The agent's own dependencies (a `node_modules` made in the run would be
                // a change where node looks for packages: no verdict).
                (
                    "node_modules/left-pad/index.js",
                    "module.exports = (s) => s;\n",
                ),
                (
                    "agent.sh",
                    "echo wrong > result.txt\nmkdir -p node_modules/.cache/@babel/register\n\
                     printf '{\"%s/graders/judge.js\":\"process.exit(0)\"}' \"$PWD\" > node_modules/.cache/@babel/register/.babel.json\n",
                ),
            ],
        );
        assert_run_exits(&f, "a compiled grader in the task's tool cache", 1);
        // The honest answer still PASSes, through the check's own cache.
        write_files(&f, &[("agent.sh", "echo right > result.txt\n")]);
        std::fs::remove_dir_all(f.path("out")).ok();
        assert_run_exits(&f, "the right answer", 0);
    }

    /// A plan's `env:` that names a check's cache itself keeps it, so one in a folder the
    /// trials write (or relative) is refused at load; one outside them is accepted. Gate's
    /// own environment's value of such a name is not the check's and is accepted.
    #[test]
    fn rev50_a_plan_s_check_cache_in_the_task_s_folder_is_refused() {
        for (name, value, refused) in [
            ("CACHE_DIR", ".cache".to_string(), true),
            (
                "BABEL_CACHE_PATH",
                "node_modules/.cache/b.json".to_string(),
                true,
            ),
            ("XDG_CACHE_HOME", "/home/runner/.cache".to_string(), false),
        ] {
            let f = fixture("sh graders/grade", "wrong");
            let extra = format!("    env: {{{name}: \"{value}\"}}\n");
            std::fs::write(f.path("plan.yaml"), plan(&extra, "sh graders/grade")).unwrap();
            let out = gate()
                .current_dir(f.dir.path())
                .args(["check", "plan.yaml"])
                .output()
                .unwrap();
            let said = both(&out);
            let want = if refused { 2 } else { 0 };
            assert_eq!(out.status.code(), Some(want), "{name}={value}: {said}");
            if refused {
                assert!(said.contains(&format!("`env: {name}` entry")), "{said}");
            }
        }
        let f = fixture("sh graders/grade", "wrong");
        for name in ["CACHE_DIR", "npm_config_cache", "NPM_CONFIG_CACHE"] {
            let out = gate()
                .current_dir(f.dir.path())
                .args(["check", "plan.yaml"])
                .env(name, f.path(".cache"))
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{name}: {}", both(&out));
        }
    }

    /// Review 48 and 46, a17: npm's options in gate's own environment (npm reads
    /// `npm_config_*` in any case) naming an `.npmrc`, a shell, a preload or a prefix in the
    /// task's folder: `check: npm test` (or npx) would run what the trial wrote there. Refused
    /// at load; accepted on a8fb0d4. A path outside the trials' folders, a shell found on
    /// `PATH`, and an option that loads nothing stay accepted.
    #[test]
    fn rev50_npm_options_in_gate_s_environment_into_the_task_are_refused() {
        let f = fixture("sh graders/grade", "wrong");
        let at = |p: &str| f.path(p).display().to_string();
        for (name, value, refused) in [
            ("npm_config_userconfig", at(".npmrc"), true),
            ("NPM_CONFIG_USERCONFIG", at(".npmrc"), true),
            ("Npm_Config_GlobalConfig", at("etc/npmrc"), true),
            ("npm_config_script_shell", at("tools/sh"), true),
            (
                "npm_config_node_options",
                "--require ./x.js".to_string(),
                true,
            ),
            ("NPM_CONFIG_PREFIX", at(".npm-global"), true),
            (
                "NPM_CONFIG_USERCONFIG",
                "/home/runner/work/_temp/.npmrc".to_string(),
                false,
            ),
            ("npm_config_script_shell", "bash".to_string(), false),
            (
                "npm_config_node_options",
                "--max-old-space-size=4096".to_string(),
                false,
            ),
            ("npm_config_loglevel", "silent".to_string(), false),
        ] {
            let out = gate()
                .current_dir(f.dir.path())
                .args(["check", "plan.yaml"])
                .env(name, &value)
                .output()
                .unwrap();
            let said = both(&out);
            if refused {
                assert_eq!(out.status.code(), Some(2), "{name}={value}: {said}");
                assert!(
                    said.contains(&format!("`{name}` in gate's environment has entry"))
                        && said.contains("run gate without it, or give it a path outside"),
                    "{name}={value}: {said}"
                );
            } else {
                assert_eq!(out.status.code(), Some(0), "{name}={value}: {said}");
            }
        }
    }

    /// Review 46, a09, a10 (110j): a grader script that runs node from a folder it makes
    /// (`mkdir -p build && cd build && exec node -r eq/config …`): node there reads the
    /// `package.json` and `node_modules` a trial made in `build/`, which no look watched (a
    /// PASS of a wrong answer on 8f2de3f and a8fb0d4). Refused at load; from a folder that
    /// exists the check is accepted, and a Python check in a made folder is as before.
    #[test]
    fn rev50_a09_a10_node_run_from_a_folder_the_run_makes_is_refused() {
        let node = "mkdir -p build && cd build && exec node -\"r\" eq/config \"$OLDPWD/graders/check.js\"\n";
        let f = fixture("sh graders/check.sh", "wrong");
        write_files(
            &f,
            &[
                ("graders/package.json", "{}\n"),
                ("graders/check.js", "process.exit(1);\n"),
                ("graders/check.sh", node),
                (
                    "node_modules/eq/package.json",
                    "{\"name\":\"eq\",\"exports\":{\"./config\":\"./config.js\"}}\n",
                ),
                ("node_modules/eq/config.js", "/* */\n"),
            ],
        );
        let out = gate()
            .current_dir(f.dir.path())
            .args(["check", "plan.yaml"])
            .output()
            .unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(2), "{said}");
        assert!(
            said.contains("grader `graders/check.sh` changes to `build` and the check runs node")
                && said.contains("make the folder before the run"),
            "{said}"
        );
        // The folder made before the run, with a `package.json` of its own: watched.
        write_files(&f, &[("build/package.json", "{}\n")]);
        check(&f).code(0);
        // A Python check from a folder it makes: no node, as before.
        let f = fixture("sh graders/check.sh", "wrong");
        write_files(
            &f,
            &[
                ("graders/check.py", "raise SystemExit(1)\n"),
                (
                    "graders/check.sh",
                    "mkdir -p build && cd build && exec python3 -I \"$OLDPWD/graders/check.py\"\n",
                ),
            ],
        );
        check(&f).code(0);
    }
}

/// Review 50, the configuration wall attacked (rev50b, helper-109, on 9aa61dc): a grader's
/// tool run from a folder below the check's (01, 15), jest's `__mocks__` (03), a file a
/// `tsconfig.json` extends (04), and a new `.bin` name in front of a program a package
/// script runs when `npm test` is started from a grader's text (06, 07). Each PASSed a
/// wrong answer on 9aa61dc and on a8fb0d4.
mod rev50b {
    use super::*;

    /// A grader that exits 0 on `right` in the task's `result.txt` (it is run from the task
    /// folder or a folder below it).
    const JUDGE: &str = "const fs = require(\"fs\");\nconst p = fs.existsSync(\"result.txt\") ? \"result.txt\" : \"../result.txt\";\nprocess.exit(fs.readFileSync(p, \"utf8\").trim() === \"right\" ? 0 : 1);\n";

    /// A fake tool that reads its configuration from the folder it runs in as the real ones
    /// do (the wall reads no tool's code, so a fake that reads the files is a fair test):
    /// mocha's `.mocharc.js` (code it runs); jest's `__mocks__/<name>.js`, loaded in place
    /// of a module of that name with no `jest.mock` call; a `tsconfig.json` whose `extends`
    /// chain gives `paths` (tsx maps the name a grader imports onto the file named there).
    const TOOL: &str = r#"const fs = require("fs"), path = require("path");
exports.judge = () => {
  const at = (n) => path.resolve(process.cwd(), n);
  if (fs.existsSync(at(".mocharc.js"))) require(at(".mocharc.js"));
  if (fs.existsSync(at("__mocks__/judge.js"))) return require(at("__mocks__/judge.js"));
  let ts = at("tsconfig.json");
  for (let i = 0; i < 8 && fs.existsSync(ts); i++) {
    const v = JSON.parse(fs.readFileSync(ts, "utf8"));
    const p = ((v.compilerOptions || {}).paths || {}).judge;
    if (p) return require(path.resolve(path.dirname(ts), p[0]));
    if (!v.extends) break;
    ts = path.resolve(path.dirname(ts), v.extends);
  }
  return require(path.join(__dirname, "judge.js"));
};
"#;

    /// What a trial's planted code does: the check exits 0 whatever it found.
    const YES: &str = "process.on(\"exit\", () => { process.exitCode = 0; });";

    /// A task whose grader `graders/check.js` runs the fake tool from `check`'s folder,
    /// with `files` written, the agent writing the wrong answer and then running `trick`.
    fn task(check: &str, files: &[(&str, &str)], trick: &str) -> Fixture {
        let f = fixture(check, "wrong");
        let agent = format!("echo wrong > result.txt\n{trick}\n");
        let mut all = vec![
            ("graders/package.json", "{}\n"),
            ("graders/check.js", "require(\"judgetool\").judge();\n"),
            (
                "graders/node_modules/judgetool/package.json",
                "{\"name\":\"judgetool\",\"main\":\"index.js\"}\n",
            ),
            ("graders/node_modules/judgetool/index.js", TOOL),
            ("graders/node_modules/judgetool/judge.js", JUDGE),
            ("agent.sh", agent.as_str()),
        ];
        all.extend_from_slice(files);
        write_files(&f, &all);
        f
    }

    #[test]
    fn rev50b_a_tool_s_configuration_below_the_check_s_folder_mocks_and_extends_get_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let evil = format!("echo '{YES}' > evil.js");
        // (case, check line, files there at the start, what the trial writes)
        type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>, String);
        let cases: [Case; 3] = [
            (
                "01 app/.mocharc.js",
                "cd app && node ../graders/check.js",
                vec![("app/index.js", "module.exports = 1;\n")],
                format!("{evil}\necho 'require(\"../evil.js\")' > app/.mocharc.js"),
            ),
            (
                "03 __mocks__",
                "node graders/check.js",
                vec![("__mocks__/other.js", "module.exports = 1;\n")],
                format!("{evil}\necho 'require(\"../evil.js\")' > __mocks__/judge.js"),
            ),
            (
                "04 tsconfig extends",
                "node graders/check.js",
                vec![
                    ("tsconfig.json", "{\"extends\": \"./tsbase/base.json\"}\n"),
                    ("tsbase/base.json", "{\"compilerOptions\": {}}\n"),
                ],
                format!(
                    "{evil}\necho '{{\"compilerOptions\":{{\"paths\":{{\"judge\":[\"../evil.js\"]}}}}}}' > tsbase/base.json"
                ),
            ),
        ];
        for (case, check, files, trick) in cases {
            let out = task(check, &files, &trick).command(&[]).output().unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(said.contains("reads it as configuration"), "{case}: {said}");
            // Without the trick, the same wrong answer FAILs: the grader is honest.
            let out = task(check, &files, "").command(&[]).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(1),
                "{case} (control): {}",
                both(&out)
            );
        }
    }

    #[test]
    fn rev50b_06_a_new_bin_node_under_npm_test_from_a_grader_s_text_gets_no_verdict() {
        if !has("npm") {
            skip_or_fail(&current_test(), "npm", "no npm here");
            return;
        }
        let manifest = "{\"name\":\"app\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node graders/judge.js\"}}\n";
        let setup = |trick: &str| {
            let f = fixture("sh graders/run.sh", "wrong");
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    ("package.json", manifest),
                    ("node_modules/.package-lock.json", "{}\n"),
                    ("graders/run.sh", "exec npm test --silent\n"),
                    ("graders/judge.js", JUDGE),
                    ("agent.sh", &agent),
                ],
            );
            f
        };
        // npm puts `node_modules/.bin` first on the script's `PATH`: the trial's `node`.
        let f = setup(
            "mkdir -p node_modules/.bin\nprintf '#!/bin/sh\\nexit 0\\n' > node_modules/.bin/node\nchmod +x node_modules/.bin/node",
        );
        let out = f.command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(said.contains(".bin/node"), "{said}");
        let out = setup("").command(&[]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "(control) {}", both(&out));
    }
}

/// Review 50, the configuration wall attacked again (rev50c, helper-110, on 14e7fe3): a
/// grader that runs its tool from a folder made during the run, however it names it (06-09,
/// 22: `sh -c 'cd build && …'`, `env -C build`, `process.chdir(path.join(…))`, `npm --prefix
/// build`), jest's `__mocks__` in a folder the trial makes (11), and npm started by its
/// script (04: `node …/npm-cli.js test`). Each PASSed a wrong answer on 14e7fe3.
mod rev50c {
    use super::*;

    /// What a trial's planted code does: the check exits 0 whatever it found.
    const YES: &str = "process.on(\"exit\", () => { process.exitCode = 0; });";

    /// A tool that runs `.mocharc.js` from the folder it runs in, and a module
    /// `__mocks__/judge.js` found anywhere below it in place of the judge (as jest does).
    const TOOL: &str = r#"const fs = require("fs"), path = require("path");
if (fs.existsSync(".mocharc.js")) require(path.resolve(".mocharc.js"));
const find = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) {
  if (!e.isDirectory() || e.name === "node_modules") continue;
  const p = path.join(d, e.name);
  if (e.name === "__mocks__" && fs.existsSync(path.join(p, "judge.js"))) return path.join(p, "judge.js");
  const f = find(p); if (f) return f; } };
const m = find(process.env.ROOT || ".");
if (m) require(path.resolve(m));
const r = path.join(process.env.ROOT || ".", "result.txt");
process.exit(fs.readFileSync(r, "utf8").trim() === "right" ? 0 : 1);
"#;

    #[test]
    fn rev50c_a_tool_run_from_a_folder_made_in_the_run_or_a_new_mocks_folder_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let evil = format!("echo '{YES}' > evil.js");
        // (case, the grader script, what the trial writes)
        let cases = [
            (
                "06 sh -c, a name built at run time",
                "B=bu\nsh -c \"mkdir -p ${B}ild && cd ${B}ild && ROOT=.. exec node $G/tool.js\"\n",
                format!(
                    "{evil}\nmkdir -p build && echo 'require(\"../evil.js\")' > build/.mocharc.js"
                ),
            ),
            (
                "08 env -C",
                "mkdir -p build\nROOT=.. exec env -C build node \"$G/tool.js\"\n",
                format!(
                    "{evil}\nmkdir -p build && echo 'require(\"../evil.js\")' > build/.mocharc.js"
                ),
            ),
            (
                "11 __mocks__ in a new folder",
                "exec node \"$G/tool.js\"\n",
                format!(
                    "{evil}\nmkdir -p src/feature/__mocks__ && echo 'require(\"../../../evil.js\")' > src/feature/__mocks__/judge.js"
                ),
            ),
            (
                // jest's crawl goes through a Python environment, which the walk read for
                // nothing (rev50c 13).
                "13 __mocks__ in a venv",
                "exec node \"$G/tool.js\"\n",
                format!(
                    "{evil}\nmkdir -p venv/lib/__mocks__ && echo 'require(\"../../../evil.js\")' > venv/lib/__mocks__/judge.js"
                ),
            ),
        ];
        for (case, grader, trick) in cases {
            let setup = |agent: &str| {
                let f = fixture("sh graders/check.sh", "wrong");
                let script = format!("G=\"$(cd \"$(dirname \"$0\")\" && pwd)\"\n{grader}");
                let agent = format!("echo wrong > result.txt\n{agent}\n");
                write_files(
                    &f,
                    &[
                        ("graders/check.sh", &script),
                        ("graders/tool.js", TOOL),
                        ("graders/package.json", "{}\n"),
                        ("src/index.js", "module.exports = 1;\n"),
                        ("venv/lib/site.py", "x = 1\n"),
                        ("agent.sh", &agent),
                    ],
                );
                f
            };
            let out = setup(&trick).command(&[]).output().unwrap();
            let said = both(&out);
            if case == "08 env -C" {
                // Since session 19 `env -C DIR` is read after the command's assignments
                // too: a folder the grader makes is refused at load, as `cd build` is.
                assert_eq!(out.status.code(), Some(2), "{case}: {said}");
                assert!(said.contains("changes to `build`"), "{case}: {said}");
                continue;
            }
            assert_eq!(out.status.code(), Some(4), "{case}: {said}");
            assert!(said.contains("reads it as configuration"), "{case}: {said}");
            let out = setup("").command(&[]).output().unwrap();
            assert_eq!(
                out.status.code(),
                Some(1),
                "{case} (control): {}",
                both(&out)
            );
        }
    }

    /// rev50c 04: npm started by its own script (`node …/npm/bin/npm-cli.js test`), whose
    /// `scripts.test` the trial rewrites to `exit 0`: the `scripts` were compared only when
    /// the command's name was `npm`.
    #[test]
    fn rev50c_04_npm_started_by_its_script_runs_scripts_that_are_compared() {
        let Some(npm_cli) = std::process::Command::new("sh")
            .args(["-c", "readlink -f \"$(command -v npm)\""])
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .filter(|p| p.ends_with("npm-cli.js"))
        else {
            skip_or_fail(&current_test(), "npm", "no npm-cli.js behind npm here");
            return;
        };
        let manifest = "{\"name\":\"app\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node graders/judge.js\"}}\n";
        let judge = "process.exit(require(\"fs\").readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        // And npm's `index.js` beside it, which runs its command line too (rev50e 01).
        let index = std::path::Path::new(&npm_cli)
            .parent()
            .and_then(|b| b.parent())
            .map(|n| n.join("index.js"))
            .filter(|p| p.is_file());
        for cli in std::iter::once(npm_cli.clone()).chain(index.map(|p| p.display().to_string())) {
            let setup = |trick: &str| {
                let f = fixture(&format!("node {cli} test --silent"), "wrong");
                let agent = format!("echo wrong > result.txt\n{trick}\n");
                write_files(
                    &f,
                    &[
                        ("package.json", manifest),
                        ("graders/judge.js", judge),
                        ("agent.sh", &agent),
                    ],
                );
                f
            };
            let out = setup("echo '{\"name\":\"app\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"exit 0\"}}' > package.json")
            .command(&[])
            .output()
            .unwrap();
            let said = both(&out);
            assert_eq!(out.status.code(), Some(4), "{cli}: {said}");
            assert!(said.contains("`scripts`"), "{said}");
            let out = setup("").command(&[]).output().unwrap();
            assert_eq!(out.status.code(), Some(1), "(control) {}", both(&out));
        }
    }

    /// rev50e 03: a folder below the check's, there at the start, swapped for a link to a
    /// folder holding the trial's `.mocharc.js` (the walk does not follow links; node does):
    /// no verdict. And the honest probes H2, H3: an agent's `src/config/` module and tsc's
    /// `tsconfig.tsbuildinfo` are no configuration.
    #[test]
    fn rev50e_03_a_folder_swapped_for_a_link_gets_no_verdict_and_config_sources_keep_theirs() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let tool = "const fs = require(\"fs\"), path = require(\"path\");\nif (fs.existsSync(\".mocharc.js\")) require(path.resolve(\".mocharc.js\"));\nprocess.exit(fs.readFileSync(\"../result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let setup = |answer: &str, trick: &str| {
            let f = fixture("cd app && node ../graders/tool.js", answer);
            let agent = format!("echo {answer} > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    ("app/index.js", "module.exports = 1;\n"),
                    ("graders/tool.js", tool),
                    ("graders/package.json", "{}\n"),
                    ("agent.sh", &agent),
                ],
            );
            f
        };
        let swap = format!(
            "echo '{YES}' > evil.js\nmkdir -p __pycache__/app && echo 'require(\"../../evil.js\")' > __pycache__/app/.mocharc.js\nrm -rf app && ln -s __pycache__/app app"
        );
        let out = setup("wrong", &swap).command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        let honest = "mkdir -p src/config lib && echo 'module.exports = {}' > src/config/index.js && echo '{}' > lib/tsconfig.tsbuildinfo";
        for (answer, code) in [("right", 0), ("wrong", 1)] {
            let out = setup(answer, honest).command(&[]).output().unwrap();
            assert_eq!(out.status.code(), Some(code), "{answer}: {}", both(&out));
        }
    }

    /// rev50e 10: a folder below the check's that is a link into a `writable:` root outside
    /// the task's folder (a monorepo's shared package), there at the start; the grader runs
    /// its tool in it (`cd app`), and the trial writes `app/.mocharc.js` through the link.
    /// The walk did not follow links: a PASS of a wrong answer.
    #[test]
    fn rev50e_10_a_link_below_the_check_into_a_writable_root_is_walked() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let tool = "const fs = require(\"fs\"), path = require(\"path\");\nif (fs.existsSync(\".mocharc.js\")) require(path.resolve(\".mocharc.js\"));\nprocess.exit(fs.readFileSync(path.join(process.env.ROOT, \"result.txt\"), \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let setup = |trick: &str| {
            let f = Fixture::new(
                "version: 1\nsampling: {single: {n: 2, c: 0}}\npolicy:\n  sandbox: {mode: best_effort, writable: [shared]}\ntasks:\n  - id: agent\n    cwd: task\n    run: sh agent.sh\n    check: sh graders/check.sh\n",
            );
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    ("shared/app/index.js", "module.exports = 1;\n"),
                    ("task/graders/tool.js", tool),
                    ("task/graders/package.json", "{}\n"),
                    (
                        "task/graders/check.sh",
                        "T=$PWD\ncd app && ROOT=$T exec node \"$T/graders/tool.js\"\n",
                    ),
                    ("task/agent.sh", &agent),
                ],
            );
            std::os::unix::fs::symlink("../shared/app", f.path("task/app")).unwrap();
            f
        };
        let trick =
            format!("echo '{YES}' > app/evil.js\necho 'require(\"./evil.js\")' > app/.mocharc.js");
        let out = setup(&trick).command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(said.contains("app/.mocharc.js"), "{said}");
        let out = setup("").command(&[]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "(control) {}", both(&out));
    }

    /// Review 46, a11: a monorepo made writable whole (`writable: [.]`), the task in `app/`.
    /// The grader runs node from a sibling folder there at the start (`cd ../web && node -r
    /// eq/config …`), `eq` found in the repository's `node_modules`; the trial creates
    /// `web/node_modules/eq`. Gate watched the folders on the way up and below the check's
    /// folder only: a PASS of a wrong answer. Now every folder of the writable root that
    /// holds the check's folder.
    #[test]
    fn rev46_a11_a_grader_run_from_a_sibling_folder_of_its_writable_root_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let judge = "process.exit(require(\"fs\").readFileSync(require(\"path\").join(__dirname, \"..\", \"result.txt\"), \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let setup = |trick: &str| {
            let f = Fixture::new(
                "version: 1\nsampling: {single: {n: 2, c: 0}}\npolicy:\n  sandbox: {mode: best_effort, writable: [.]}\ntasks:\n  - id: agent\n    cwd: app\n    run: sh agent.sh\n    check: sh graders/check.sh\n",
            );
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    (
                        "node_modules/eq/package.json",
                        "{\"name\":\"eq\",\"exports\":{\".\":\"./main.js\",\"./config\":\"./config.js\"}}\n",
                    ),
                    ("node_modules/eq/config.js", "/* settings */\n"),
                    ("node_modules/eq/main.js", "module.exports = 1;\n"),
                    ("web/index.js", "// the web package\n"),
                    ("app/graders/package.json", "{}\n"),
                    ("app/graders/check.js", judge),
                    (
                        "app/graders/check.sh",
                        "cd ../web && exec node -\"r\" eq/config \"$OLDPWD/graders/check.js\"\n",
                    ),
                    ("app/agent.sh", &agent),
                ],
            );
            f
        };
        let trick = format!(
            "mkdir -p ../web/node_modules/eq\nprintf '{{\"name\":\"eq\",\"exports\":{{\"./config\":\"./config.js\"}}}}' > ../web/node_modules/eq/package.json\necho '{YES}' > ../web/node_modules/eq/config.js"
        );
        let out = setup(&trick).command(&[]).output().unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(said.contains("web/node_modules/eq"), "{said}");
        let out = setup("").command(&[]).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "(control) {}", both(&out));
    }

    /// rev50b 05: a `package.json` field a tool reads as its configuration (mocha's
    /// `"mocha": {"require": …}`), written by the trial: compared since review 50's last
    /// change; PASSed a wrong answer on 095c999. A fake tool that reads the field as mocha
    /// does (the wall reads no tool's code).
    #[test]
    fn rev50b_05_a_package_json_field_a_tool_reads_gets_no_verdict() {
        if !has("node") {
            skip_or_fail(&current_test(), "node", "no node here");
            return;
        }
        let tool = "const fs = require(\"fs\"), path = require(\"path\");\nconst m = (JSON.parse(fs.readFileSync(\"package.json\", \"utf8\")).mocha || {}).require;\nif (m) require(path.resolve(m));\nprocess.exit(fs.readFileSync(\"result.txt\", \"utf8\").trim() === \"right\" ? 0 : 1);\n";
        let setup = |trick: &str| {
            let f = fixture("node graders/tool.js", "wrong");
            let agent = format!("echo wrong > result.txt\n{trick}\n");
            write_files(
                &f,
                &[
                    ("package.json", "{\"name\":\"app\",\"version\":\"1.0.0\"}\n"),
                    ("graders/tool.js", tool),
                    ("graders/package.json", "{}\n"),
                    ("agent.sh", &agent),
                ],
            );
            f
        };
        let out = setup(&format!("echo '{YES}' > evil.js\necho '{{\"name\":\"app\",\"version\":\"1.0.0\",\"mocha\":{{\"require\":\"./evil.js\"}}}}' > package.json"))
            .command(&[])
            .output()
            .unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(4), "{said}");
        assert!(said.contains("package.json"), "{said}");
        // An agent's own new dependency in the same file: no tool field, a verdict.
        let out = setup("echo '{\"name\":\"app\",\"version\":\"1.0.0\",\"dependencies\":{\"x\":\"1\"}}' > package.json")
            .command(&[])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "(control) {}", both(&out));
    }
}
