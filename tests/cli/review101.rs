//! Review 101 (helper-165, 25 attacks on the unittest discovery gate accepts since this
//! session, each run by the real Python; 12 PASSed a wrong answer under `gate run`), by
//! class: a folder the trials write lying directly in a folder Python puts first on
//! `sys.path` (the script's folder; the current one under `-m`, `-c` or stdin; unittest's
//! top-level folder), named like a module the grader imports — one of the standard
//! library's (`html`, `json`, `email`, `signal`, which unittest itself imports) or one beside
//! it (`data.py` and a folder `data/`: a package comes first), where a trial's
//! `NAME/__init__.py` is imported in its place, `python3 check.py` included; discovery
//! through a link to a folder holding one the trials write, or through a chain of links;
//! `-m` in a cluster of Python's flags (`-Im unittest`, `-Bm unittest discover`, `-Im
//! pickle`); an interpreter by another name (`bin/py -> python3.11`); argparse's `-s=tests`
//! and `-t=out`. Each is refused when the plan is loaded (exit 2), and the honest layouts
//! of the review stay accepted.

use crate::common::*;

/// A task whose trials write `writes` (each exists, empty) and answer wrong, with a
/// unittest suite `tests/` that reads `out/answer.txt`, and `files` written; its `check:`
/// is `check`.
fn task(writes: &str, check: &str, files: &[(&str, &str)]) -> Fixture {
    let f = Fixture::new(&format!(
        "version: 1\nsampling:\n  single: {{n: 2, c: 0}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    check: {}\n    writes: [{writes}]\n",
        serde_json::to_string(check).unwrap()
    ));
    for w in writes.split(", ") {
        std::fs::create_dir_all(f.path(w)).unwrap();
    }
    write_files(
        &f,
        &[
            ("agent.sh", "mkdir -p work && echo 41 > work/answer.txt\n"),
            ("tests/__init__.py", ""),
            (
                "tests/test_answer.py",
                "import unittest\nclass T(unittest.TestCase):\n    def test_a(self):\n        self.assertEqual(open('work/answer.txt').read().strip(), '42')\n",
            ),
            (
                "check.py",
                "import json, sys\nsys.exit(0 if open('work/answer.txt').read().strip() == '42' else 1)\n",
            ),
            (
                "graders/moves.py",
                "import os, sys\nos.chdir('work')\nsys.exit(0 if open('answer.txt').read().strip() == '42' else 1)\n",
            ),
        ],
    );
    write_files(&f, files);
    f
}

/// A grader read on stdin that moves into the folder the trials write, then imports
/// (review 102, a33).
const STDIN_CHDIR: &str = "import os\nos.chdir('work')\nimport statistics\n";

/// An attack as [`Attack`], with the words its refusal must say.
type Refusal<'a> = (&'a str, &'a str, &'a str, Vec<(&'a str, &'a str)>, &'a str);

/// Each of `cases` is refused at load (exit 2), saying its words.
fn assert_each_refused(cases: Vec<Refusal>) {
    for (what, writes, line, files, said) in cases {
        let f = task(writes, line, &files);
        let out = check(&f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: not refused\n{err}");
        assert!(err.contains(said), "{what}: wanted `{said}` in\n{err}");
    }
}

/// An attack: what it is, the task's `writes:`, the `check:` line, the files it adds.
type Attack<'a> = (&'a str, &'a str, &'a str, Vec<(&'a str, &'a str)>);

#[test]
fn rev101_a_folder_the_trials_write_named_like_a_module_on_sys_path_is_refused() {
    let attacks: Vec<Attack> = vec![
        (
            "a01 html",
            "work, html",
            "python3 -m unittest discover -s tests",
            vec![],
        ),
        (
            "p6 json beside a script",
            "work, json",
            "python3 check.py",
            vec![],
        ),
        (
            "a03 signal",
            "work, signal",
            "python3 -m unittest discover -s tests",
            vec![],
        ),
        (
            "a07 -I with -t .",
            "work, html",
            "python3 -I -m unittest discover -s tests -t .",
            vec![],
        ),
        (
            "a12 json under -c",
            "work, json",
            "python3 -c 'import json'",
            vec![],
        ),
        (
            "a13 email, names",
            "work, email",
            "python3 -m unittest tests.test_answer",
            vec![],
        ),
        (
            "a21 a package before the plan's module",
            "work, data",
            "python3 -m unittest discover -s tests",
            vec![("data.py", "def load():\n    return 1\n")],
        ),
        (
            "a25 before a namespace package",
            "work, expect",
            "python3 -m unittest discover -s tests",
            vec![("tests/expect/x.py", "")],
        ),
        (
            "x01 pytest -m",
            "work, json",
            "python3 -m pytest -q tests",
            vec![],
        ),
        ("a05 -Im", "work", "python3 -Im unittest -v", vec![]),
        ("a06 -Bm", "work", "python3 -Bm unittest discover", vec![]),
        (
            "x02 -Im pickle",
            "work",
            "python3 -Im pickle work/r.pkl",
            vec![],
        ),
        (
            "a11 -t=",
            "work",
            "python3 -m unittest discover -s tests -t=work",
            vec![],
        ),
    ];
    for (what, writes, line, files) in attacks {
        let f = task(writes, line, &files);
        let out = check(&f).get_output().clone();
        assert_eq!(
            out.status.code(),
            Some(2),
            "{what}: not refused\n{}",
            both(&out)
        );
    }
    // Review 102 (helper-166): the same folder reached other ways.
    let review102: Vec<Attack> = vec![
        (
            "a09 a script run by its #! line",
            "work, html",
            "./run.py",
            vec![("run.py", "#!/usr/bin/env python3\nimport html\n")],
        ),
        (
            "a10 a grader shell script",
            "work, html",
            "sh graders/grade.sh",
            vec![(
                "graders/grade.sh",
                "python3 -m unittest discover -s tests\n",
            )],
        ),
        (
            "a13 beside a module one level down",
            "work, checker/expected",
            "python3 check.py",
            vec![
                ("checker/__init__.py", ""),
                ("checker/expected.py", "A = 42\n"),
            ],
        ),
        (
            "a26 PYTHONPATH=. on the line",
            "work, html",
            "PYTHONPATH=. python3 graders/run.py",
            vec![("graders/run.py", "import html\n")],
        ),
        (
            "a22 env PYTHONPATH=.",
            "work, html",
            "env PYTHONPATH=. python3 graders/run.py",
            vec![("graders/run.py", "import html\n")],
        ),
        (
            "a28 __future__",
            "work, __future__",
            "python3 check.py",
            vec![],
        ),
        (
            "a34 chdir in inline code",
            "work",
            "python3 -c 'import os; os.chdir(\"work\"); import statistics'",
            vec![],
        ),
        // a33: a program read on stdin has the current folder first on `sys.path` too.
        (
            "a33 chdir in a program fed on stdin",
            "work",
            "python3 - < graders/stdin.py",
            vec![("graders/stdin.py", STDIN_CHDIR)],
        ),
        (
            "a33 the same, no `-`",
            "work",
            "python3 < graders/stdin.py",
            vec![("graders/stdin.py", STDIN_CHDIR)],
        ),
        (
            "a33 the same, piped by cat",
            "work",
            "cat graders/stdin.py | python3 -",
            vec![("graders/stdin.py", STDIN_CHDIR)],
        ),
        (
            "a33 the same, echoed",
            "work",
            "echo 'import os; os.chdir(\"work\"); import statistics' | python3",
            vec![],
        ),
        (
            "a33 the same, in a grader shell script",
            "work",
            "sh graders/grade.sh",
            vec![
                ("graders/stdin.py", STDIN_CHDIR),
                ("graders/grade.sh", "python3 - < graders/stdin.py\n"),
            ],
        ),
        // a14: Python's bytecode cache listed in `writes:` (a trial's forged `.pyc` runs in
        // place of `helper.py`).
        (
            "a14 __pycache__ in writes",
            "work, __pycache__",
            "python3 check.py",
            vec![("helper.py", "")],
        ),
        (
            "a14 a __pycache__ below a folder in writes",
            "work, work/__pycache__",
            "python3 check.py",
            vec![],
        ),
        (
            "a33 a here-document in a grader shell script",
            "work",
            "sh graders/grade.sh",
            vec![(
                "graders/grade.sh",
                "python3 - <<'EOF'\nimport os\nos.chdir('work')\nimport statistics\nEOF\n",
            )],
        ),
    ];
    for (what, writes, line, files) in review102 {
        let f = task(writes, line, &files);
        if f.path("run.py").exists() {
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(f.path("run.py"), std::fs::Permissions::from_mode(0o755))
                .unwrap();
        }
        let out = check(&f).get_output().clone();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(2), "{what}: not refused\n{said}");
        assert!(
            [
                "named like",
                "beside the module",
                "`chdir`",
                "`__pycache__`"
            ]
            .iter()
            .any(|w| said.contains(w)),
            "{what}: refused for another reason\n{said}"
        );
    }
    // a14: the check's folder keeps its bytecode cache through a link into a folder the
    // trials write.
    let f = task("work, cache", "python3 check.py", &[("helper.py", "")]);
    std::os::unix::fs::symlink("cache", f.path("__pycache__")).unwrap();
    assert_refused_at_load(&f, "a14 link", "keeps its bytecode cache `__pycache__`");
    // a08: a link named like a module, to a folder the trials create.
    let f = task("work", "python3 check.py", &[]);
    std::os::unix::fs::symlink("work/html", f.path("html")).unwrap();
    assert_refused_at_load(&f, "a08", "named like the standard library's `html`");
    // a27: `env: PYTHONPATH` naming the plan's `lib/report.py`, beaten by a `report/` the
    // trials write in the folder the check runs in.
    let f = task(
        "work, report",
        "python3 -m unittest discover -s tests",
        &[("lib/report.py", "")],
    );
    let plan = std::fs::read_to_string(f.plan()).unwrap();
    std::fs::write(
        f.plan(),
        plan.replace(
            "    writes:",
            &format!(
                "    env: {{PYTHONPATH: {}}}\n    writes:",
                f.path("lib").display()
            ),
        ),
    )
    .unwrap();
    check(&f).code(2);
    // An installed package (pip, where the check's Python has it) named by a folder the
    // trials write: a trial's `pip/__init__.py` comes first (a01-a04's class).
    let pip = std::process::Command::new("python3")
        .args(["-c", "import pip"])
        .output()
        .is_ok_and(|o| o.status.success());
    if pip {
        let f = task("work, pip", "python3 -m unittest discover -s tests", &[]);
        check(&f)
            .code(2)
            .stderr(predicates::str::contains("named like the module `pip`"));
    } else {
        skip_or_fail(
            "rev101_a_folder_the_trials_write_named_like_a_module_on_sys_path_is_refused (pip)",
            "pip",
            "python3 has no pip here",
        );
    }
    // Links: to a package holding a folder the trials write (a02), and a chain (a10).
    let f = task(
        "work, app/generated",
        "python3 -m unittest discover -s tests",
        &[("app/__init__.py", "")],
    );
    std::os::unix::fs::symlink("../app", f.path("tests/app")).unwrap();
    assert_refused_at_load(
        &f,
        "a02",
        "is a link to a folder the trials write or one above it",
    );
    let f = task(
        "work",
        "python3 -m unittest discover -s tests",
        &[("lib/__init__.py", "")],
    );
    std::os::unix::fs::symlink("../lib", f.path("tests/lib")).unwrap();
    std::os::unix::fs::symlink("../work", f.path("lib/gen")).unwrap();
    assert_refused_at_load(
        &f,
        "a10",
        "is a link to a folder the trials write or one above it",
    );
    // An interpreter by another name (a20).
    let python = std::process::Command::new("sh")
        .args(["-c", "command -v python3"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    if let Ok(real) = std::fs::canonicalize(&python) {
        let f = task("work", "bin/py -m unittest -v", &[]);
        std::fs::create_dir_all(f.path("bin")).unwrap();
        std::os::unix::fs::symlink(&real, f.path("bin/py")).unwrap();
        assert_refused_at_load(&f, "a20", "by another name");
    } else {
        skip_or_fail(
            "rev101_a_folder_the_trials_write_named_like_a_module_on_sys_path_is_refused (a20)",
            "python3",
            "python3 is not installed",
        );
    }
}

/// The honest layouts of review 101 stay accepted, and grade: `writes:` named like no
/// module; `site` (imported before the script's folder is on `sys.path`); Python run with
/// `-I`, where the folder is not on `sys.path`; `-s=tests` as argparse reads it.
#[test]
fn rev101_honest_unittest_and_script_layouts_stay_accepted_and_grade() {
    let test = "rev101_honest_unittest_and_script_layouts_stay_accepted_and_grade";
    if !has("python3") {
        skip_or_fail(test, "python3", "python3 is not installed");
        return;
    }
    // Names no Python 3 imports from there: Python 2's own, and those imported before the
    // folder is on `sys.path`.
    for writes in ["work, user", "work, os", "work, compiler"] {
        check(&task(writes, "python3 check.py", &[])).code(0);
    }
    for (writes, line) in [
        ("work", "python3 check.py"),
        ("work, site", "python3 check.py"),
        ("work, json", "python3 -I check.py"),
        ("work", "python3 -m unittest discover -s=tests"),
        // A program on stdin that stays where it started (a33's fix refuses a `chdir`).
        ("work", "python3 - < check.py"),
        ("work", "python3 -I - < graders/moves.py"),
        ("work, out2", "python3 -m unittest discover tests -v"),
    ] {
        check(&task(writes, line, &[])).code(0);
        for no_mounts in box_modes(test) {
            for (answer, code) in [("41", 1), ("42", 0)] {
                let agent = format!("mkdir -p work && echo {answer} > work/answer.txt\n");
                let f = task(writes, line, &[("agent.sh", &agent)]);
                run_in(&f, no_mounts).code(code);
            }
        }
    }
}

/// Review 102's last open case: the console script `pytest` (not `python3 -m pytest`, which
/// puts the folder it runs in first) puts the folder above a test package — the first
/// without an `__init__.py`, or a `conftest.py`'s — first on `sys.path` under its default
/// import mode, so a folder the trials write there named like a module the tests import
/// (`wave`, which pytest has not imported itself) is imported in its place: refused at load;
/// `--import-mode=importlib`, which leaves `sys.path` alone, is accepted and grades.
#[test]
fn rev102_console_pytest_puts_the_folder_above_a_test_package_first_and_is_refused_there() {
    let test =
        "rev102_console_pytest_puts_the_folder_above_a_test_package_first_and_is_refused_there";
    let plan = |line: &str| {
        format!(
            "version: 1\nsampling:\n  single: {{n: 2, c: 0}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    check: {line}\n    writes: [work, wave]\n"
        )
    };
    let fixture = |line: &str, package: bool, conftest: bool, answer: &str| {
        let f = Fixture::new(&plan(line));
        std::fs::create_dir_all(f.path("work")).unwrap();
        std::fs::create_dir_all(f.path("wave")).unwrap();
        let agent = format!(
            "echo {answer} > work/answer.txt\nprintf 'def read():\\n    return \"42\"\\n' > wave/__init__.py\n"
        );
        write_files(
            &f,
            &[
                ("agent.sh", agent.as_str()),
                (
                    "tests/test_answer.py",
                    "import wave\n\ndef test_answer():\n    assert open('work/answer.txt').read().strip() == '42'\n    assert not hasattr(wave, 'read')\n",
                ),
            ],
        );
        if package {
            write_files(&f, &[("tests/__init__.py", "")]);
        }
        if conftest {
            write_files(&f, &[("conftest.py", "")]);
        }
        f
    };
    let line = "pytest -q -p no:cacheprovider tests";
    for (package, conftest) in [(true, false), (false, true)] {
        let f = fixture(line, package, conftest, "41");
        check(&f)
            .code(2)
            .stderr(predicates::str::contains(
                "puts the folder above its test packages on `sys.path`",
            ))
            .stderr(predicates::str::contains("the standard library's `wave`"));
    }
    // The same file named on the line is refused the same way.
    let f = fixture(
        "pytest -q -p no:cacheprovider tests/test_answer.py",
        true,
        false,
        "41",
    );
    check(&f).code(2);
    // A test folder that is no package, with no `conftest.py` above it: its own folder is
    // what pytest puts first, and `wave` is not in it.
    check(&fixture(line, false, false, "41")).code(0);
    if !has("pytest") {
        skip_or_fail(test, "pytest", "no pytest here");
        return;
    }
    let importlib = "pytest -q -p no:cacheprovider --import-mode=importlib tests";
    check(&fixture(importlib, true, false, "41")).code(0);
    for no_mounts in box_modes(test) {
        for (answer, code) in [("41", 1), ("42", 0)] {
            run_in(&fixture(importlib, true, false, answer), no_mounts).code(code);
            run_in(&fixture(line, false, false, answer), no_mounts).code(code);
        }
    }
}

/// Review 103 (helper-167, 51 attacks on the three fixes above, 18 wrong PASSes): a move of
/// folder spelled otherwise (`getattr(os, "ch" + "dir")`, `os.fchdir`, `exec` or `runpy` of a
/// grader file, a module beside the program that moves), a grader shell script that `cd`s
/// into a folder the trials write before a Python with its current folder first on
/// `sys.path`, a `__pycache__` reached through a chain of links a trial completes, pytest
/// run as a script by its path, an import mode set where gate cannot tell whether pytest
/// reads it (a configuration file, an `@file`), and an optional import of a module Python
/// has nowhere else. Each is refused when the plan is loaded (exit 2).
#[test]
fn rev103_other_spellings_of_a_move_a_link_chain_and_pytest_import_modes_are_refused() {
    let stdin = |mv: &str| format!("import os, sys\n{mv}\nimport statistics\nsys.exit(0)\n");
    let getattr = stdin("getattr(os, 'ch' + 'dir')('work')");
    let fchdir = stdin("os.fchdir(os.open('work', os.O_RDONLY))");
    let moves = stdin("os.chdir('work')");
    let cases: Vec<Refusal> = vec![
        (
            "a05",
            "work",
            "python3 - < graders/p.py",
            vec![("graders/p.py", &getattr)],
            "python's `getattr`",
        ),
        (
            "a06",
            "work",
            "python3 - < graders/p.py",
            vec![("graders/p.py", &fchdir)],
            "chdir`",
        ),
        (
            "a07",
            "work",
            "python3 -c 'exec(open(\"graders/p.py\").read())'",
            vec![("graders/p.py", &moves)],
            "python's `exec`",
        ),
        (
            "a09",
            "work",
            "python3 -c 'import runpy; runpy.run_path(\"graders/p.py\")'",
            vec![("graders/p.py", &moves)],
            "python's `runpy`",
        ),
        (
            "a18",
            "work",
            "python3 - < graders/p.py",
            vec![
                ("graders/p.py", "import gradelib\nimport statistics\n"),
                ("gradelib.py", "import os\nos.chdir('work')\n"),
            ],
            "python's `chdir`",
        ),
        (
            "a19",
            "work",
            "python3 -c 'import os; os.fchdir(os.open(\"work\", 0)); import statistics'",
            vec![],
            "chdir`",
        ),
        (
            "a22",
            "work",
            "sh graders/run.sh",
            vec![
                ("graders/run.sh", "python3 - < graders/p.py\n"),
                ("graders/p.py", &fchdir),
            ],
            "chdir`",
        ),
        (
            "a23",
            "work",
            "sh graders/run.sh",
            vec![
                ("graders/run.sh", "cd work && python3 - < ../graders/p.py\n"),
                ("graders/p.py", "import statistics\n"),
            ],
            "which Python puts first on `sys.path`",
        ),
    ];
    assert_each_refused(cases);
    // c03: `graders/__pycache__ -> ../pcl`, `pcl -> work/pc` (missing until a trial makes it).
    let f = task(
        "work",
        "python3 -B graders/p.py",
        &[
            ("graders/p.py", "import helper\n"),
            ("graders/helper.py", ""),
        ],
    );
    std::os::unix::fs::symlink("../pcl", f.path("graders/__pycache__")).unwrap();
    std::os::unix::fs::symlink("work/pc", f.path("pcl")).unwrap();
    check(&f)
        .code(2)
        .stderr(predicates::str::contains("`__pycache__` through a link"));
    // The same chain for a package's cache below the grader's folder, read as a link out of
    // the folder gate holds read-only, to its end.
    let f = task(
        "work",
        "python3 -B graders/p.py",
        &[
            (
                "graders/p.py",
                "import lib.helper
",
            ),
            ("graders/lib/__init__.py", ""),
            ("graders/lib/helper.py", ""),
        ],
    );
    std::os::unix::fs::symlink("../../pcl", f.path("graders/lib/__pycache__")).unwrap();
    std::os::unix::fs::symlink("work/pc", f.path("pcl")).unwrap();
    check(&f)
        .code(2)
        .stderr(predicates::str::contains("is a link to"));
    // pytest: run by its path, its import mode in a configuration file or an `@file`, and
    // an optional import of a module installed nowhere.
    let pytest = |line: &str, files: &[(&str, &str)]| {
        let f = task("work, wave, ujson", line, files);
        write_files(
            &f,
            &[
                ("tests/__init__.py", ""),
                (
                    "tests/test_answer.py",
                    "try:\n    import ujson as json\nexcept ImportError:\n    import json\nimport wave\n\ndef test_a():\n    assert open('work/answer.txt').read().strip() == '42'\n",
                ),
            ],
        );
        f
    };
    for (what, line, files) in [
        (
            "p07",
            "python3 venv/bin/pytest -q tests",
            vec![("venv/bin/pytest", "")],
        ),
        (
            "p18",
            "pytest -q tests",
            vec![
                (
                    "pyproject.toml",
                    "[tool.pytest.ini_options]\naddopts = \"--import-mode=importlib\"\n",
                ),
                ("pytest.ini", "[pytest]\naddopts = -q\n"),
            ],
        ),
        (
            "p04",
            "pytest -q --import-mode=importlib @opts tests",
            vec![("opts", "--import-mode=prepend\n")],
        ),
        ("p13", "pytest -q --import-mode=append tests", vec![]),
    ] {
        let f = pytest(line, &files);
        let out = check(&f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: not refused\n{err}");
        assert!(
            err.contains("puts the folder above its test packages"),
            "{what}: refused for another reason\n{err}"
        );
    }
    // Under `append` the standard library's `wave` comes first: only `ujson`, which Python
    // has nowhere else, is named.
    let f = pytest("pytest -q --import-mode=append tests", &[]);
    check(&f).code(2).stderr(predicates::str::contains(
        "named like the module `ujson` the tests import",
    ));
}

/// Review 104 (helper-168, 37 attacks on review 103's fixes, 26 wrong PASSes): the imports a
/// program or a test makes read in every statement form (`try: import x`, `if t: import x`,
/// a `\` continuation, `importorskip("x")`, `import_module("x")`), a module of the current
/// folder read whole (a package's every file, a submodule, a relative import) or refused
/// when only compiled, other spellings of a move (`operator.attrgetter`, `getattr_static`,
/// `__getattribute__`, a pickle), a grader script's `cd` to a folder the shell computes or
/// `env -C`, and pytest's `pythonpath` over a folder the trials write. Each is refused when
/// the plan is loaded; honest inline graders stay accepted.
#[test]
fn rev104_imports_in_every_statement_form_and_computed_folders_are_read() {
    let program = |mv: &str| format!("import os, sys\n{mv}\nimport statistics\nsys.exit(0)\n");
    let attrgetter = program("import operator; operator.attrgetter('ch' + 'dir')(os)('work')");
    let pickled = program("import pickle; pickle.loads(b\"cos\\nchdir\\n(S'work'\\ntR.\")");
    let cases: Vec<Refusal> = vec![
        (
            "a01 continuation",
            "work",
            "python3 - < graders/p.py",
            vec![
                (
                    "graders/p.py",
                    "import sys, \\\n gradelib\nimport statistics\n",
                ),
                ("gradelib.py", "import os\nos.chdir('work')\n"),
            ],
            "python's `chdir`",
        ),
        (
            "a03 try: import",
            "work",
            "python3 - < graders/p.py",
            vec![
                (
                    "graders/p.py",
                    "try: import gradelib\nexcept ImportError: pass\n",
                ),
                ("gradelib.py", "import os\nos.chdir('work')\n"),
            ],
            "python's `chdir`",
        ),
        (
            "a23 a relative import in a package",
            "work",
            "python3 - < graders/p.py",
            vec![
                ("graders/p.py", "import gradepkg\n"),
                ("gradepkg/__init__.py", "from . import mover\n"),
                ("gradepkg/mover.py", "import os\nos.chdir('work')\n"),
            ],
            "python's `chdir`",
        ),
        (
            "a24 a compiled module only",
            "work",
            "python3 - < graders/p.py",
            vec![("graders/p.py", "import gradelib\n"), ("gradelib.pyc", "")],
            "without its source",
        ),
        (
            "a07 attrgetter",
            "work",
            "python3 - < graders/p.py",
            vec![("graders/p.py", &attrgetter)],
            "python's `attrgetter`",
        ),
        (
            "a09 a pickle",
            "work",
            "python3 - < graders/p.py",
            vec![("graders/p.py", &pickled)],
            "python's `",
        ),
        (
            "a16 cd to a computed folder",
            "work",
            "sh graders/run.sh",
            vec![
                (
                    "graders/run.sh",
                    "D=work; cd \"$D\" && python3 - < ../graders/p.py\n",
                ),
                ("graders/p.py", "import statistics\n"),
            ],
            "a folder the shell computes",
        ),
        (
            "a19 env -C",
            "work",
            "sh graders/run.sh",
            vec![
                ("graders/run.sh", "env -C work python3 - < graders/p.py\n"),
                ("graders/p.py", "import statistics\n"),
            ],
            "`env` chooses",
        ),
    ];
    assert_each_refused(cases);
    // pytest: an optional dependency named by a folder the trials write, in the forms the
    // review found, and `pythonpath = .` under `importlib`.
    for (what, test, line, files) in [
        (
            "p01",
            "try: import ujson as json\nexcept ImportError: import json\n",
            "pytest -q tests",
            vec![],
        ),
        (
            "p02",
            "import pytest\nuj = pytest.importorskip(\"ujson\")\n",
            "pytest -q tests",
            vec![],
        ),
        (
            "p04",
            "import os, \\\n ujson as json\n",
            "pytest -q tests",
            vec![],
        ),
        (
            "p07",
            "try: import ujson as json\nexcept ImportError: import json\n",
            "pytest -q --import-mode=importlib tests",
            vec![("pytest.ini", "[pytest]\npythonpath = .\n")],
        ),
    ] {
        let f = task("work, ujson", line, &files);
        write_files(
            &f,
            &[("tests/__init__.py", ""), ("tests/test_answer.py", test)],
        );
        let out = check(&f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{what}: not refused\n{err}");
        assert!(
            err.contains("named like the module `ujson` the tests import"),
            "{what}: refused for another reason\n{err}"
        );
    }
    // Honest inline graders: a method named like a built-in, a helper with no move.
    for (line, files) in [
        (
            "python3 -c 'import re, sys; sys.exit(0 if re.compile(\"4\").match(\"42\") else 1)'",
            vec![],
        ),
        (
            "python3 - < graders/p.py",
            vec![
                (
                    "graders/p.py",
                    "import gradelib, sys\nsys.exit(0 if gradelib.ok() else 1)\n",
                ),
                (
                    "gradelib.py",
                    "def ok():\n    return open('work/answer.txt').read().strip() == '42'\n",
                ),
            ],
        ),
    ] {
        check(&task("work", line, &files)).code(0);
    }
}
