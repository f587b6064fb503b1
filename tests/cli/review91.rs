//! Review 91 (helper-154, 90 attacks on the `check:` line outside make, each proved by the
//! real tool on the machine; 28 accepted, 23 of them PASSed a failing agent under `gate
//! run`), by class: what pytest imports or reads that its command line does not show
//! (a warning filter's category, `-W ignore::out.w.W`; a configuration file's `addopts`,
//! `filterwarnings`, `pythonpath`; `PYTEST_ADDOPTS` split as a shell splits it; an `@file`
//! read from stdin; `--pdb` and `--trace`, which run what stdin holds); interpreters that go
//! on reading stdin after their script (`python3 -i`, `-ic`, `-m asyncio`) or are fed by a
//! group's, a subshell's or `exec`'s redirection; `python -m unittest out.w`; jest, vitest
//! and `bun test`, which collect every test file beneath their project whatever their
//! arguments; `node --env-file` setting `NODE_OPTIONS`. Each is refused when the plan is
//! loaded (exit 2); the honest `-o cache_dir=$TMPDIR/pc`, refused since review 89, is
//! accepted.

use crate::common::*;

/// A task whose trials write `out/` only (it exists, empty), with a failing test
/// `tests/test_a.py`, and `files` written: its `check:` is `check`.
fn task(check: &str, files: &[(&str, &str)]) -> Fixture {
    let f = Fixture::new(&plan("    writes: [out]\n", check));
    write_files(
        &f,
        &[
            ("agent.sh", "echo 41 > out/answer.txt\n"),
            ("out/.keep", ""),
            ("tests/test_a.py", "def test_a():\n    assert 1 == 2\n"),
        ],
    );
    write_files(&f, files);
    f
}

/// `gate check` of `f`: its output, after asserting it exits with `code` (`what` names the
/// case in the failure).
fn exits(f: &Fixture, code: i32, what: &str) -> std::process::Output {
    let out = check(f).get_output().clone();
    assert_eq!(out.status.code(), Some(code), "{what}: {}", both(&out));
    out
}

/// A case of the node reviews: what it is, the `check:` line, the files it adds.
type Case<'a> = (&'a str, &'a str, Vec<(&'a str, &'a str)>);

/// Each of `attacks` refused when the plan is loaded (exit 2) and each of `honest` accepted
/// (exit 0), each a [`task`] over `base` and its own files. With `out_named`, `OUT` in a
/// file's text stands for the absolute path of the task's `out` folder.
fn judge(base: &[(&str, &str)], attacks: Vec<Case>, honest: Vec<Case>, out_named: bool) {
    for (cases, code) in [(attacks, 2), (honest, 0)] {
        for (what, line, files) in cases {
            let f = task(line, base);
            let out = f.path("out").to_string_lossy().into_owned();
            let files: Vec<(&str, String)> = files
                .iter()
                .map(|(n, t)| match out_named {
                    true => (*n, t.replace("OUT", &out)),
                    false => (*n, t.to_string()),
                })
                .collect();
            let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
            write_files(&f, &files);
            exits(&f, code, what);
        }
    }
}

/// A node project in the task's folder with a `jest` package installed (its files only: gate
/// reads them, it does not run them) and `scripts`.
fn node_project(check: &str, scripts: &str) -> Fixture {
    task(
        check,
        &[
            (
                "package.json",
                &format!(
                    "{{\"name\":\"t\",\"version\":\"1.0.0\",\"private\":true,\"scripts\":{scripts}}}\n"
                ),
            ),
            (
                "node_modules/jest/package.json",
                "{\"name\":\"jest\",\"version\":\"29.7.0\",\"bin\":{\"jest\":\"bin/jest.js\"}}\n",
            ),
            (
                "node_modules/jest/bin/jest.js",
                "require('jest-cli/bin/jest');\n",
            ),
            (
                "tests/a.test.js",
                "test('ok', () => { expect(1).toBe(2) })\n",
            ),
        ],
    )
}

#[test]
fn rev91_what_pytest_imports_or_reads_off_the_line_is_read() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 15] = [
        (
            "-W category",
            "python3 -m pytest -q -W ignore::out.w.W tests",
            &[],
        ),
        (
            "--pythonwarnings category",
            "python3 -m pytest -q --pythonwarnings=ignore::out.w.W tests",
            &[],
        ),
        (
            "-o filterwarnings",
            "python3 -m pytest -q -o filterwarnings=ignore::out.w.W tests",
            &[],
        ),
        (
            "@ from stdin",
            "python3 -m pytest -q @/dev/stdin tests < out/args",
            &[],
        ),
        (
            "PYTEST_ADDOPTS @ from stdin",
            "PYTEST_ADDOPTS=@/dev/stdin python3 -m pytest -q tests < out/args",
            &[],
        ),
        (
            "PYTEST_ADDOPTS quoted module",
            "PYTEST_ADDOPTS='-p \"out\".w' python3 -m pytest -q tests",
            &[],
        ),
        (
            "PYTEST_ADDOPTS escaped module",
            "PYTEST_ADDOPTS='-p o\\ut.w' python3 -m pytest -q tests",
            &[],
        ),
        (
            "pytest.ini addopts",
            "python3 -m pytest -q tests",
            &[("pytest.ini", "[pytest]\naddopts = -p out.w\n")],
        ),
        (
            "pytest.ini filterwarnings",
            "python3 -m pytest -q tests",
            &[(
                "pytest.ini",
                "[pytest]\nfilterwarnings =\n    ignore::out.w.W\n",
            )],
        ),
        (
            "pyproject addopts",
            "python3 -m pytest -q tests",
            &[(
                "pyproject.toml",
                "[tool.pytest.ini_options]\naddopts = \"out\"\n",
            )],
        ),
        (
            "pyproject pythonpath",
            "python3 -m pytest -q tests",
            &[(
                "pyproject.toml",
                "[tool.pytest.ini_options]\npythonpath = [\n  \"src\",\n  \"out\",\n]\n",
            )],
        ),
        (
            "setup.cfg addopts",
            "python3 -m pytest -q tests",
            &[("setup.cfg", "[tool:pytest]\naddopts = -p out.w\n")],
        ),
        (
            "-c file's addopts",
            "python3 -m pytest -q -c tests/pytest.ini tests",
            &[("tests/pytest.ini", "[pytest]\naddopts = --rootdir=. out\n")],
        ),
        ("--pdb", "python3 -m pytest -q --pdb tests < out/i.py", &[]),
        ("--trace", "pytest -q --trace tests < out/i.py", &[]),
    ];
    for (what, line, files) in cases {
        let f = task(line, files);
        exits(&f, 2, what);
    }
    // The check's own `TMPDIR` is no folder the trials write.
    let f = task("python3 -m pytest -q -o cache_dir=$TMPDIR/pc tests", &[]);
    exits(&f, 0, "");
    // A configuration that names only what the plan holds reads as before.
    let f = task(
        "python3 -m pytest -q tests",
        &[(
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"-q -p no:cacheprovider\"\nfilterwarnings = [\"error::DeprecationWarning\"]\ntestpaths = [\"tests\"]\n",
        )],
    );
    exits(&f, 0, "");
}

#[test]
fn rev91_an_interpreter_fed_its_input_another_way_is_refused() {
    for line in [
        "exec < out/g.sh; sh",
        "{ sh; } < out/g.sh",
        "(sh) < out/g.sh",
        "python3 -i tests/run.py < out/i.py",
        "python3 -ic 'x = 1' < out/one.py",
        "python3 -m asyncio < out/one.py",
        "python3 -m unittest out.w",
    ] {
        let f = task(line, &[("tests/run.py", "x = 1\n")]);
        exits(&f, 2, line);
    }
    // A test module the plan holds, named by module.
    let f = task(
        "python3 -m unittest tests.test_b",
        &[
            (
                "tests/test_b.py",
                "import unittest\nclass T(unittest.TestCase):\n    def test_b(self):\n        self.assertEqual(1, 2)\n",
            ),
            ("tests/__init__.py", ""),
        ],
    );
    exits(&f, 0, "");
}

#[test]
fn rev91_jest_and_vitest_collecting_a_folder_the_trials_write_are_refused() {
    for (line, scripts) in [
        ("npx jest --ci tests/", "{}"),
        ("npx jest --ci", "{}"),
        ("npx jest --ci tests/a.test.js", "{}"),
        ("node node_modules/jest/bin/jest.js --ci tests/", "{}"),
        ("npm test", "{\"test\":\"jest --ci\"}"),
        ("npm run unit", "{\"unit\":\"vitest run tests/\"}"),
        // jest's root is the folder of the nearest `package.json`, the task's.
        ("cd tests && npx jest --ci", "{}"),
    ] {
        let f = node_project(line, scripts);
        let out = exits(&f, 2, line);
        assert!(
            both(&out).contains("collects every test file"),
            "{line}: {}",
            both(&out)
        );
    }
}

#[test]
fn rev91_node_env_file_setting_node_options_is_refused() {
    let f = task(
        "node --env-file=tests/.env tests/t.js",
        &[
            ("tests/.env", "NODE_OPTIONS=--require ./out/x.js\n"),
            ("tests/t.js", "process.exit(1)\n"),
        ],
    );
    let out = exits(&f, 2, "");
    assert!(both(&out).contains("NODE_OPTIONS"), "{}", both(&out));
    // An env file of plain values reads as before.
    let f = task(
        "node --env-file=tests/.env tests/t.js",
        &[
            ("tests/.env", "GREETING=hello\n"),
            ("tests/t.js", "process.exit(1)\n"),
        ],
    );
    exits(&f, 0, "");
}

/// Review 92 (helper-155, 39 attacks on reviews 90's and 91's fixes): 22 more accepted, each
/// refused now. A `pyproject.toml` is read by a TOML parser (multi-line and escaped strings,
/// quoted and dotted keys, inline tables, indented keys and headers); the configuration file
/// is the one `-qc F` or `PYTEST_ADDOPTS="-c F"` names too; a recipe's `[[ … -eq … ]]`,
/// `$((…))`, and a program read from a descriptor or stdin (`sh /dev/fd/3 3< out/g.sh`, `awk
/// -f /dev/stdin < out/a.awk`); npm's `pre` scripts and scripts run through npm, mocha's own
/// globs, `playwright test`, and `node --test` with no path, which collect a project's folder.
#[test]
fn rev92_toml_clusters_descriptors_and_more_collectors_are_read() {
    let p = "python3 -m pytest -q tests";
    let toml = |text: &'static str| -> Vec<(&'static str, &'static str)> {
        vec![("pyproject.toml", text)]
    };
    let cases: Vec<Case> = vec![
        (
            "multi-line basic string",
            p,
            toml("[tool.pytest.ini_options]\naddopts = \"\"\"\n-p out.w\n\"\"\"\n"),
        ),
        (
            "multi-line literal string",
            p,
            toml("[tool.pytest.ini_options]\naddopts = '''\n-p out.w\n'''\n"),
        ),
        (
            "unicode escape",
            p,
            toml("[tool.pytest.ini_options]\naddopts = \"-p \\u006fut.w\"\n"),
        ),
        (
            "quoted key",
            p,
            toml("[tool.pytest.ini_options]\n\"addopts\" = \"-p out.w\"\n"),
        ),
        (
            "dotted key",
            p,
            toml("[tool]\npytest.ini_options.addopts = \"-p out.w\"\n"),
        ),
        (
            "inline tables",
            p,
            toml("tool = { pytest = { ini_options = { addopts = \"-p out.w\" } } }\n"),
        ),
        (
            "indented key",
            p,
            toml("[tool.pytest.ini_options]\n  addopts = \"-p out.w\"\n"),
        ),
        (
            "spaced header",
            p,
            toml("[tool . pytest . ini_options]\naddopts = \"-p out.w\"\n"),
        ),
        (
            "quoted header part",
            p,
            toml("[\"tool\".pytest.ini_options]\naddopts = \"-p out.w\"\n"),
        ),
        (
            "indented header",
            p,
            toml("  [tool.pytest.ini_options]\naddopts = \"-p out.w\"\n"),
        ),
        (
            "escaped category",
            p,
            toml("[tool.pytest.ini_options]\nfilterwarnings = [\"ignore::\\u006fut.w.W\"]\n"),
        ),
        (
            "-qc cluster",
            "python3 -m pytest -qc ro.ini tests",
            vec![("ro.ini", "[pytest]\naddopts = -p out.w\n")],
        ),
        (
            "PYTEST_ADDOPTS -c",
            "PYTEST_ADDOPTS='-c ro.ini' python3 -m pytest -q tests",
            vec![("ro.ini", "[pytest]\naddopts = -p out.w\n")],
        ),
        (
            "recipe [[ arithmetic",
            "make -B test",
            vec![(
                "Makefile",
                "SHELL := /bin/bash\ntest:\n\t[[ $$(cat out/v) -eq 42 ]]\n",
            )],
        ),
        (
            "recipe $(( ))",
            "make -B test",
            vec![(
                "Makefile",
                "test:\n\tx=$$(cat out/v); test $$((x)) -eq 42\n",
            )],
        ),
        (
            "recipe script from a descriptor",
            "make -B test",
            vec![("Makefile", "test:\n\tsh /dev/fd/3 3< out/g.sh\n")],
        ),
        (
            "recipe awk -f stdin",
            "make -B test",
            vec![("Makefile", "test:\n\tawk -f /dev/stdin < out/a.awk\n")],
        ),
    ];
    for (what, line, files) in &cases {
        let f = task(line, files);
        exits(&f, 2, what);
    }
    for (line, scripts) in [
        (
            "npm test",
            "{\"test\":\"npm run unit\",\"unit\":\"jest --ci\"}",
        ),
        (
            "npm test",
            "{\"pretest\":\"jest --ci\",\"test\":\"echo ok\"}",
        ),
        ("npm test", "{\"test\":\"node --test\"}"),
        ("npx mocha \"**/*.spec.js\"", "{}"),
        ("npx playwright test", "{}"),
    ] {
        let f = node_project(line, scripts);
        exits(&f, 2, &format!("{line} {scripts}"));
    }
}

/// Review 93 (helper-156, 34 attacks on review 92's fixes): 21 more accepted, each refused
/// now: `pytest.toml` and `.pytest.toml` (pytest 9 reads them first) and a `-c` TOML file's
/// `[pytest]` table; an ini file's lines split as Python splits them (a lone `\r`, `\x0b`,
/// U+2028) with any blank starting a continuation; a glob in `testpaths`; `npm start`,
/// `restart` and `it`, and a workspace's scripts; a recipe's `${x:$(cat out/v)}`, `${a[…]}`,
/// `${!f}`, `printf -v` and `test -v`, which bash evaluates as arithmetic.
#[test]
fn rev93_pytest_files_lines_and_npm_lifecycles_are_read() {
    let p = "python3 -m pytest -q tests";
    let cases: [(&str, &str, &str, &str); 13] = [
        (
            "pytest.toml",
            p,
            "pytest.toml",
            "[pytest]\naddopts = [\"-p\", \"out.w\"]\n",
        ),
        (
            ".pytest.toml",
            p,
            ".pytest.toml",
            "[pytest]\naddopts = [\"-p\", \"out.w\"]\n",
        ),
        (
            "-c TOML's [pytest]",
            "python3 -m pytest -q -c ro.toml tests",
            "ro.toml",
            "[pytest]\naddopts = [\"-p\", \"out.w\"]\n",
        ),
        (
            "a lone CR",
            p,
            "pytest.ini",
            "[pytest]\raddopts = -p out.w\n",
        ),
        (
            "a vertical tab",
            p,
            "tox.ini",
            "[pytest]\nmarkers = a\x0baddopts = -p out.w\n",
        ),
        (
            "U+2028",
            p,
            "pytest.ini",
            "[pytest]\nmarkers = a\u{2028}addopts = -p out.w\n",
        ),
        (
            "a no-break space continuation",
            p,
            "pytest.ini",
            "[pytest]\naddopts = -q\n\u{a0}-p out.w\n",
        ),
        (
            "a testpaths glob",
            "python3 -m pytest -q",
            "pytest.ini",
            "[pytest]\ntestpaths = o*\n",
        ),
        (
            "recipe substring offset",
            "make -B test",
            "Makefile",
            "SHELL := /bin/bash\ntest:\n\tx=abc; echo $${x:$$(cat out/v)}\n",
        ),
        (
            "recipe array subscript",
            "make -B test",
            "Makefile",
            "SHELL := /bin/bash\ntest:\n\techo $${a[$$(cat out/v)]}\n",
        ),
        (
            "recipe indirect name",
            "make -B test",
            "Makefile",
            "SHELL := /bin/bash\ntest:\n\tf=$$(cat out/v); echo $${!f}\n",
        ),
        (
            "recipe printf -v",
            "make -B test",
            "Makefile",
            "SHELL := /bin/bash\ntest:\n\tprintf -v \"a[$$(cat out/v)]\" x\n",
        ),
        (
            "recipe test -v",
            "make -B test",
            "Makefile",
            "SHELL := /bin/bash\ntest:\n\ttest -v \"a[$$(cat out/v)]\"\n",
        ),
    ];
    for (what, line, file, text) in cases {
        let f = task(line, &[(file, text)]);
        exits(&f, 2, what);
    }
    for (line, scripts) in [
        ("npm start", "{\"start\":\"jest --ci\"}"),
        (
            "npm restart",
            "{\"restart\":\"echo\",\"start\":\"jest --ci\"}",
        ),
        ("npm it", "{\"test\":\"jest --ci\"}"),
    ] {
        let f = node_project(line, scripts);
        exits(&f, 2, &format!("{line} {scripts}"));
    }
    // A workspace's script, read from its own `package.json`.
    let f = node_project("npm run test -w pkg", "{}");
    write_files(
        &f,
        &[(
            "pkg/package.json",
            "{\"name\":\"pkg\",\"scripts\":{\"test\":\"cd .. && jest --ci\"}}\n",
        )],
    );
    exits(&f, 2, "");
}

/// Review 94 (helper-157, 39 attacks on review 93's fixes; 28 accepted, 8 of them PASSed a
/// failing agent under `gate run`): a pytest ini file read as `iniconfig` reads it (a byte
/// order mark, a `[` line that is no section, blank and comment lines inside a value, a
/// `\x1f` continuation); `addopts`, `pythonpath` and `PYTEST_ADDOPTS` split as `shlex`
/// splits them (a `#` word, a `$(…)` word); `cache_dir` in a folder the trials write; npm's
/// workspaces by name, twice, with the root, by parent folder, in a folder the trials
/// write; npm's valued options, lifecycle commands and prefixed script bodies; `.npmrc`'s
/// `node-options` and `.mocharc.yml`'s `require`; a recipe's `printf -vNAME`, `compgen`.
#[test]
fn rev94_ini_files_npm_workspaces_and_node_configs_are_read_as_their_tools_read_them() {
    let p = "python3 -m pytest -p no:cacheprovider tests";
    let cases: [(&str, &str, &str, &str); 13] = [
        (
            "a byte order mark",
            p,
            "pytest.ini",
            "\u{feff}[pytest]\naddopts = -p out.w\n",
        ),
        (
            "a [ line that is no section",
            p,
            "pytest.ini",
            "[pytest]\npython_files = test_*.py\n[notes\naddopts = -p out.w\n",
        ),
        (
            "a blank line in a value",
            p,
            "pytest.ini",
            "[pytest]\naddopts = -q\n\n    -p out.w\n",
        ),
        (
            "a comment in a value",
            p,
            "pytest.ini",
            "[pytest]\naddopts = -q\n# plugins:\n    -p out.w\n",
        ),
        (
            "a \\x1f continuation",
            p,
            "pytest.ini",
            "[pytest]\naddopts = -q\n\x1f-p out.w\n",
        ),
        (
            "a # word",
            p,
            "pytest.ini",
            "[pytest]\naddopts = --deselect #x -p out.w\n",
        ),
        (
            "a # word in TOML",
            p,
            "pyproject.toml",
            "[tool.pytest.ini_options]\naddopts = \"--deselect #x -p out.w\"\n",
        ),
        (
            "a $(…) word",
            p,
            "pytest.ini",
            "[pytest]\naddopts = --deselect=$(x -p out.w --deselect=)\n",
        ),
        (
            "a # word in pythonpath",
            p,
            "pyproject.toml",
            "[tool.pytest.ini_options]\npythonpath = \"#x out\"\naddopts = \"-p w\"\n",
        ),
        (
            "setup.cfg's blank line",
            p,
            "setup.cfg",
            "[tool:pytest]\naddopts = -q\n\n  -p out.w\n",
        ),
        (
            "cache_dir",
            "python3 -m pytest --lf tests",
            "pytest.ini",
            "[pytest]\ncache_dir = out/.pytest_cache\n",
        ),
        (
            "recipe printf -vNAME",
            "make -B test",
            "Makefile",
            "SHELL := /bin/bash\ntest:\n\tprintf -va\"[$$(cat out/v)]\" %s x\n\texit 1\n",
        ),
        (
            "recipe compgen",
            "make -B test",
            "Makefile",
            "SHELL := /bin/bash\ntest:\n\tcompgen -W \"$$(cat out/v)\" -- x\n\texit 1\n",
        ),
    ];
    for (what, line, file, text) in cases {
        let f = task(line, &[(file, text)]);
        exits(&f, 2, what);
    }
    let f = Fixture::new(&plan(
        "    writes: [out]\n    env: {PYTEST_ADDOPTS: \"--deselect #x -p out.w\"}\n",
        p,
    ));
    write_files(
        &f,
        &[
            ("agent.sh", "true\n"),
            ("out/.keep", ""),
            ("tests/test_a.py", ""),
        ],
    );
    exits(&f, 2, "PYTEST_ADDOPTS's # word");
    // A plain name after `-v` evaluates nothing.
    for recipe in ["test -v CI && echo ci", "printf -v stamp '%s' ok"] {
        let f = task(
            "make -B test",
            &[(
                "Makefile",
                &format!("SHELL := /bin/bash\ntest:\n\t{recipe}\n\texit 1\n"),
            )],
        );
        exits(&f, 0, recipe);
    }
    // npm: each line runs jest somewhere in the project, which holds `out/`.
    let workspaces = |root: &str, app: &str| -> Vec<(String, String)> {
        vec![
            (
                "package.json".into(),
                format!("{{\"name\":\"t\",\"workspaces\":[\"packages/*\"],\"scripts\":{root}}}\n"),
            ),
            (
                "packages/app/package.json".into(),
                format!("{{\"name\":\"@acme/app\",\"scripts\":{app}}}\n"),
            ),
        ]
    };
    let jest = "{\"test\":\"cd ../.. && jest --ci\"}";
    let quiet = "{\"test\":\"node -e 0\"}";
    let npm: Vec<(&str, Vec<(String, String)>)> = vec![
        ("npm test -w @acme/app", workspaces("{}", jest)),
        ("npm test -w packages", workspaces("{}", jest)),
        (
            "npm test -w packages/app -w @acme/app",
            workspaces("{}", jest),
        ),
        (
            "npm test -w packages/app --include-workspace-root",
            workspaces("{\"test\":\"jest --ci\"}", quiet),
        ),
        (
            "npm --loglevel silent test",
            workspaces("{\"test\":\"jest --ci\"}", quiet),
        ),
        (
            "npm run --loglevel warn test",
            workspaces("{\"test\":\"jest --ci\"}", quiet),
        ),
        (
            "npm test",
            workspaces("{\"test\":\"timeout 120 node --test\"}", quiet),
        ),
        (
            "npm test",
            workspaces("{\"test\":\"env NODE_ENV=test node --test\"}", quiet),
        ),
        (
            "npm pack --dry-run",
            workspaces("{\"prepack\":\"jest --ci\"}", quiet),
        ),
        ("npm frobnicate", workspaces("{}", quiet)),
        (
            "npm test -ws",
            vec![
                (
                    "package.json".into(),
                    "{\"name\":\"t\",\"workspaces\":[\"out/*\"]}\n".into(),
                ),
                (
                    "out/app/package.json".into(),
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"node t.js\"}}\n".into(),
                ),
            ],
        ),
        (
            "npm test",
            vec![
                (
                    "package.json".into(),
                    "{\"name\":\"t\",\"scripts\":{\"test\":\"node tests/check.js\"}}\n".into(),
                ),
                (
                    ".npmrc".into(),
                    "node-options=--require ./out/x.js\n".into(),
                ),
            ],
        ),
        (
            "npx mocha tests/a.spec.js",
            vec![(".mocharc.yml".into(), "require: ./out/x.js\n".into())],
        ),
    ];
    for (line, files) in npm {
        let f = task(line, &[]);
        let files: Vec<(&str, &str)> = files
            .iter()
            .map(|(a, b)| (a.as_str(), b.as_str()))
            .collect();
        write_files(&f, &files);
        exits(&f, 2, &format!("{line} {files:?}"));
    }
    // Read to the end, an honest workspace is accepted.
    let f = task("npm test -w @acme/app", &[]);
    let files = workspaces("{}", quiet);
    let files: Vec<(&str, &str)> = files
        .iter()
        .map(|(a, b)| (a.as_str(), b.as_str()))
        .collect();
    write_files(&f, &files);
    exits(&f, 0, "an honest workspace");
}

/// Review 95 (helper-158, 39 attacks on review 94's fixes; 24 accepted, 8 PASSed under `gate
/// run`): a mocha configuration's bare `out` (mocha resolves it as `./out`), in
/// `package.json`'s `mocha`, and read whatever runs mocha (its script by path, a recipe, a
/// package script); an `.npmrc` key quoted or with `[]`; a package script's `{ node --test;
/// }` and `sh -c "node --test"`; `node --test .`; a jest or vitest configuration naming a
/// path in a folder the trials write from a project that holds none; every `-v` of a recipe's
/// `test`. Each fixture is accepted without the one file or line that makes it an attack.
#[test]
fn rev95_node_configurations_are_read_whatever_runs_the_tool() {
    let mocha = "node node_modules/mocha/bin/mocha.js tests/a.spec.js";
    let base: Vec<(&str, &str)> = vec![
        (
            "package.json",
            "{\"name\":\"t\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node tests/c.js\"}}\n",
        ),
        (
            "node_modules/mocha/package.json",
            "{\"name\":\"mocha\",\"version\":\"11.8.0\"}\n",
        ),
        (
            "node_modules/mocha/bin/mocha.js",
            "require('../lib/cli');\n",
        ),
        (
            "tests/a.spec.js",
            "it('ok', () => { throw new Error('no') })\n",
        ),
        ("tests/c.js", "process.exit(1)\n"),
    ];
    let attacks: Vec<Case> = vec![
        (
            "mocharc bare require",
            mocha,
            vec![(".mocharc.yml", "require: out\n")],
        ),
        (
            "mocharc bare reporter",
            mocha,
            vec![(".mocharc.yml", "reporter: out\n")],
        ),
        (
            "mocharc spec folder",
            mocha,
            vec![(".mocharc.yml", "spec: [tests/a.spec.js, out]\n")],
        ),
        (
            "package.json's mocha",
            mocha,
            vec![(
                "package.json",
                "{\"name\":\"t\",\"version\":\"1.0.0\",\"mocha\":{\"require\":\"out\"}}\n",
            )],
        ),
        (
            "mocha from a recipe",
            "make -B test",
            vec![
                (
                    "Makefile",
                    "test:\n\tnode node_modules/mocha/bin/mocha.js tests/a.spec.js\n",
                ),
                (".mocharc.yml", "require: ./out/x.js\n"),
            ],
        ),
        (
            "mocharc in JavaScript",
            mocha,
            vec![(
                ".mocharc.js",
                "module.exports = { require: ['./out/x.js'] };\n",
            )],
        ),
        (
            "npmrc quoted key",
            "npm test",
            vec![(".npmrc", "\"node-options\" = \"--require ./out/x.js\"\n")],
        ),
        (
            "npmrc array key",
            "npm test",
            vec![(".npmrc", "node-options[] = --require ./out/x.js\n")],
        ),
        (
            "script group",
            "npm test",
            vec![(
                "package.json",
                "{\"name\":\"t\",\"scripts\":{\"test\":\"{ node --test; }\"}}\n",
            )],
        ),
        (
            "script sh -c",
            "npm test",
            vec![(
                "package.json",
                "{\"name\":\"t\",\"scripts\":{\"test\":\"sh -c \\\"node --test\\\"\"}}\n",
            )],
        ),
        (
            "script if",
            "npm test",
            vec![(
                "package.json",
                "{\"name\":\"t\",\"scripts\":{\"test\":\"if true; then node --test; fi\"}}\n",
            )],
        ),
        ("node --test .", "node --test .", vec![]),
        (
            "jest setupFiles from a project beside out",
            "cd app && node ../node_modules/jest/bin/jest.js",
            vec![(
                "app/jest.config.json",
                "{\"setupFiles\":[\"<rootDir>/../out/s.js\"]}\n",
            )],
        ),
        (
            "jest roots in package.json",
            "cd app && node ../node_modules/jest/bin/jest.js",
            vec![(
                "app/package.json",
                "{\"name\":\"app\",\"jest\":{\"roots\":[\"<rootDir>\",\"<rootDir>/../out\"]}}\n",
            )],
        ),
        (
            "vitest setupFiles",
            "cd app && node ../node_modules/vitest/vitest.mjs run",
            vec![(
                "app/vitest.config.mjs",
                "export default { test: { setupFiles: [\"../out/s.js\"] } }\n",
            )],
        ),
        (
            "recipe test -v twice",
            "make -B test",
            vec![(
                "Makefile",
                "SHELL := /bin/bash\ntest:\n\ttest -v HOME -a -v \"$$(cat out/v)\"; exit 1\n",
            )],
        ),
    ];
    let honest: Vec<Case> = vec![
        ("the project alone", mocha, vec![]),
        (
            "mocharc.jsonc with a comment",
            mocha,
            vec![(
                ".mocharc.jsonc",
                "// the specs\n{\"spec\": \"tests/a.spec.js\"}\n",
            )],
        ),
        (
            "a plain mocharc.js",
            mocha,
            vec![(
                ".mocharc.js",
                "module.exports = { spec: 'tests/a.spec.js' };\n",
            )],
        ),
        (
            "mocharc ignoring out",
            mocha,
            vec![(
                ".mocharc.yml",
                "ignore: [out/**]\nreporter-option: [output=out/j.xml]\n",
            )],
        ),
        ("npm pkg get", "npm pkg get version", vec![]),
        ("node --test tests", "node --test tests/a.spec.js", vec![]),
        (
            "jest in a project beside out",
            "cd app && node ../node_modules/jest/bin/jest.js",
            vec![(
                "app/jest.config.json",
                "{\"setupFiles\":[\"<rootDir>/s.js\"]}\n",
            )],
        ),
        (
            "recipe test -v of names",
            "make -B test",
            vec![(
                "Makefile",
                "SHELL := /bin/bash\ntest:\n\ttest -v HOME -a -v CI; exit 1\n",
            )],
        ),
    ];
    let mut base = base;
    base.extend([
        ("app/s.js", ""),
        ("node_modules/jest/bin/jest.js", ""),
        ("node_modules/vitest/vitest.mjs", ""),
    ]);
    judge(&base, attacks, honest, false);
}

/// Review 96 (helper-159, 45 attacks on review 95's fixes; 15 of 16 proved accepted, 7
/// PASSed under `gate run`): a JavaScript configuration that builds a path (`'o' + 'ut'`, an
/// escape, `String.fromCharCode`, a regex whose quote hid a literal, a `require` of a file
/// holding the paths); a folder that holds `out` (`spec: .`, jest's `rootDir: ".."`,
/// `--rootDir ..`); configurations reached by reference (jest's `projects` and `preset`, a
/// babel plugin); `npm --color test`. Seven honest setups it found refused (a pytest check
/// beside a vite configuration, a JavaScript `coverageDirectory` in `out`, `node --test
/// tests`) are accepted.
#[test]
fn rev96_node_configurations_in_code_by_reference_and_widening_are_read() {
    let mocha = "node node_modules/mocha/bin/mocha.js tests/a.spec.js";
    let jest = "cd app && node ../node_modules/jest/bin/jest.js";
    let base: Vec<(&str, &str)> = vec![
        (
            "package.json",
            "{\"name\":\"t\",\"version\":\"1.0.0\",\"scripts\":{\"test\":\"node --test\"}}\n",
        ),
        (
            "node_modules/mocha/bin/mocha.js",
            "require('../lib/cli');\n",
        ),
        ("node_modules/jest/bin/jest.js", ""),
        (
            "tests/a.spec.js",
            "it('ok', () => { throw new Error('no') })\n",
        ),
        ("app/package.json", "{\"name\":\"app\"}\n"),
        ("app/a.test.js", "test('ok', () => { expect(1).toBe(2) })\n"),
    ];
    let attacks: Vec<Case> = vec![
        (
            "concatenation",
            mocha,
            vec![(
                ".mocharc.js",
                "module.exports = { require: ['./o' + 'ut/x.js'] };\n",
            )],
        ),
        (
            "an escape",
            mocha,
            vec![(
                ".mocharc.js",
                "module.exports = { require: ['./o\\x75t/x.js'] };\n",
            )],
        ),
        (
            "a regex's quote",
            mocha,
            vec![(
                ".mocharc.js",
                "const q = /'/\nconst r = './out/x.js'\nconst z = /'/\nmodule.exports = { require: [r] }\n",
            )],
        ),
        (
            "a required file of paths",
            mocha,
            vec![
                (
                    ".mocharc.js",
                    "module.exports = { require: require('./cfgpaths') }\n",
                ),
                ("cfgpaths.js", "module.exports = ['./out/x.js']\n"),
            ],
        ),
        (
            "character codes",
            mocha,
            vec![(
                ".mocharc.js",
                "const path = require('path');\nmodule.exports = { require: [path.join(__dirname, String.fromCharCode(111, 117, 116), 'x.js')] };\n",
            )],
        ),
        (
            "spec: .",
            mocha,
            vec![(".mocharc.yml", "spec: .\nrecursive: true\n")],
        ),
        (
            "jest rootDir ..",
            jest,
            vec![(
                "app/jest.config.json",
                "{\"rootDir\":\"..\",\"setupFiles\":[\"<rootDir>/out/s.js\"]}\n",
            )],
        ),
        (
            "jest --rootDir ..",
            "cd app && node ../node_modules/jest/bin/jest.js --rootDir ..",
            vec![],
        ),
        (
            "jest projects",
            jest,
            vec![
                ("app/jest.config.json", "{\"projects\":[\"<rootDir>/p\"]}\n"),
                (
                    "app/p/jest.config.json",
                    "{\"rootDir\":\"..\",\"setupFiles\":[\"<rootDir>/../out/s.js\"]}\n",
                ),
            ],
        ),
        (
            "jest preset",
            jest,
            vec![
                (
                    "app/jest.config.json",
                    "{\"preset\":\"./mypreset/jest-preset.json\"}\n",
                ),
                (
                    "app/mypreset/jest-preset.json",
                    "{\"setupFiles\":[\"<rootDir>/../out/s.js\"]}\n",
                ),
            ],
        ),
        (
            "a babel plugin",
            jest,
            vec![("app/babel.config.json", "{\"plugins\":[\"../out/p.js\"]}\n")],
        ),
        ("npm --color test", "npm --color test", vec![]),
    ];
    let honest: Vec<Case> = vec![
        ("jest beside out", jest, vec![]),
        (
            "a JavaScript coverageDirectory",
            jest,
            vec![(
                "app/jest.config.js",
                "module.exports = { coverageDirectory: '../out/coverage' };\n",
            )],
        ),
        (
            "jest-junit's outputDirectory",
            jest,
            vec![(
                "app/jest.config.json",
                "{\"reporters\":[\"default\",[\"jest-junit\",{\"outputDirectory\":\"../out\"}]]}\n",
            )],
        ),
        ("node --test of a folder", "node --test tests", vec![]),
        (
            "a vite configuration beside a script",
            "sh tests/run.sh",
            vec![
                ("tests/run.sh", "exit 1\n"),
                (
                    "vite.config.mjs",
                    "export default { build: { outDir: 'out' }, resolve: { alias: { '@': `${__dirname}/src` } } }\n",
                ),
            ],
        ),
    ];
    judge(&base, attacks, honest, false);
}

/// `cache_dir` is expanded as pytest expands it (`os.path.expanduser`): `~` is the home the
/// check shares with gate, so `~/c` with that home in a folder the trials write is refused
/// and elsewhere accepted; `~user` names a home gate does not know, refused as a path made
/// when the check runs (session 31's own finding).
#[test]
fn cache_dir_under_a_tilde_is_expanded_as_pytest_expands_it() {
    let line = "python3 -m pytest --lf tests";
    let ini = |v: &str| format!("[pytest]\ncache_dir = {v}\n");
    let with_home = |f: &Fixture, home: &std::path::Path| {
        gate()
            .current_dir(f.dir.path())
            .env("HOME", home)
            .args(["check", "plan.yaml"])
            .output()
            .unwrap()
    };
    let f = task(line, &[("pytest.ini", &ini("~/.pytest_cache"))]);
    let out = with_home(&f, &f.path("out"));
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    let f = task(line, &[("pytest.ini", &ini("~/.pytest_cache"))]);
    let elsewhere = tempfile::tempdir().unwrap();
    let out = with_home(&f, elsewhere.path());
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    let f = task(line, &[("pytest.ini", &ini("~nobody/c"))]);
    let out = with_home(&f, elsewhere.path());
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("by pytest as it expands it"),
        "{}",
        both(&out)
    );
}

/// Review 97 (helper-160, 51 attacks on review 96's fixes with mocha 11.8, jest 30.5 and
/// vitest 4.1; 48 proved, 35 PASSed a failing agent under `gate run`), by class: JavaScript
/// that builds a path by a string method, a legacy octal escape, a line continuation, a
/// regular expression or an HTML-like comment that put the literal scanner out of step, a
/// ternary's branch taken for a key, a value kept under a key that names no code and used
/// elsewhere, a `file://` URL; `.babelrc.js`/`.cjs`; a package script's `--config`,
/// `NODE_OPTIONS` or `node --test … ../out`; `-c=`, jest's JSON `--config '{…}'`; a spec file
/// or an option's file in a folder the trials write, there yet or not; a `package.json` no
/// JSON reader takes; a missing folder's `..` and a dangling link; `setsid`, `ionice`; a
/// project beneath a `make -C`, a script or a grader; mocha's paths from where it runs; a
/// jest `projects` glob, `require(path.join(__dirname, 'paths'))`. Each is refused when the
/// plan is loaded; review 96's seven over-refusals it found (`path.join(__dirname, '..')`,
/// vite's `base: '/'`, `--coverageDirectory ../out`, `process.env.CI ? … : …`,
/// `import.meta.dirname`, `.toString()`, a proxy's `p.replace(…)`) are accepted.
/// The node project of reviews 97 to 99: `app/` with a failing mocha spec and a failing
/// jest test, run from `app/` by npx.
const APP_BASE: &[(&str, &str)] = &[
    (
        "app/package.json",
        "{\"name\":\"app\",\"version\":\"1.0.0\"}\n",
    ),
    (
        "app/a.spec.js",
        "it('ok', () => { throw new Error('no') })\n",
    ),
    ("app/a.test.js", "test('ok', () => { expect(1).toBe(2) })\n"),
];
const APP_MOCHA: &str = "cd app && npx mocha a.spec.js";
const APP_JEST: &str = "cd app && npx jest";

#[test]
fn rev97_node_configurations_read_past_code_scripts_and_wrappers() {
    let (mocha, jest) = (APP_MOCHA, APP_JEST);
    let base: Vec<(&str, &str)> = APP_BASE.to_vec();
    let mocharc = |js: &'static str| vec![("app/.mocharc.js", js)];
    let attacks: Vec<Case> = vec![
        (
            "an array's join",
            mocha,
            mocharc("module.exports = { require: ['../o', 'ut/x.js'].join('') }\n"),
        ),
        (
            "toLowerCase",
            mocha,
            mocharc("module.exports = { require: '../OUT/x.js'.toLowerCase() }\n"),
        ),
        (
            "a legacy octal escape",
            mocha,
            mocharc("module.exports = { require: '../\\157ut/x.js' }\n"),
        ),
        (
            "a line continuation",
            mocha,
            mocharc("module.exports = { require: '../o\\\nut/x.js' }\n"),
        ),
        (
            "a regex after if (…)",
            mocha,
            mocharc("if (1) /'/.test('');\nmodule.exports = { require: ['../out/x.js'] }; //'\n"),
        ),
        (
            "a postfix ++ before a division",
            mocha,
            mocharc(
                "let i = 0; const h = i++ / 2; const a = '../';\nmodule.exports = { require: ['../out/x.js'] }; // '\n",
            ),
        ),
        (
            "an HTML-like comment",
            mocha,
            mocharc("<!-- '\nmodule.exports = { require: ['../out/x.js'] } // '\n"),
        ),
        (
            "a ternary's branch",
            mocha,
            mocharc("module.exports = { require: 0 ? 'ignore' : '../out/x.js' }\n"),
        ),
        (
            "a value kept under timeout",
            mocha,
            mocharc(
                "const o = { timeout: '../out/x.js' };\nmodule.exports = { require: [o.timeout] }\n",
            ),
        ),
        (
            "substring of a variable",
            mocha,
            mocharc("const p = 'X../out/x.js';\nmodule.exports = { require: p.substring(1) }\n"),
        ),
        (
            "a tagged template",
            mocha,
            mocharc(
                "const t = (s) => s.raw.join('');\nmodule.exports = { require: t`../o${__dirname}ut/x.js` }\n",
            ),
        ),
        (
            "a file:// URL",
            "npx mocha tests/a.spec.js",
            vec![(".mocharc.yml", "require: file://OUT/s.mjs\n")],
        ),
        (
            ".babelrc.js",
            jest,
            vec![(
                "app/.babelrc.js",
                "module.exports = { plugins: ['../out/p.js'] }\n",
            )],
        ),
        (
            ".babelrc.cjs",
            jest,
            vec![(
                "app/.babelrc.cjs",
                "module.exports = { plugins: ['../out/p.js'] }\n",
            )],
        ),
        (
            "a script's --config",
            "cd app && npm test",
            vec![
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"jest --config ./cfg.json\"}}\n",
                ),
                ("app/cfg.json", "{\"setupFiles\":[\"../out/s.js\"]}\n"),
            ],
        ),
        (
            "a script's NODE_OPTIONS",
            "cd app && npm test",
            vec![(
                "app/package.json",
                "{\"name\":\"app\",\"scripts\":{\"test\":\"NODE_OPTIONS=\\\"--require ../out/x.js\\\" jest\"}}\n",
            )],
        ),
        (
            "a script's node --test operand",
            "cd app && npm test",
            vec![(
                "app/package.json",
                "{\"name\":\"app\",\"scripts\":{\"test\":\"node --test a.node.test.js ../out\"}}\n",
            )],
        ),
        (
            "-c=",
            "cd app && npx jest -c=cfg.json",
            vec![("app/cfg.json", "{\"setupFiles\":[\"../out/s.js\"]}\n")],
        ),
        (
            "jest's JSON on the line",
            "cd app && npx jest --config '{\"setupFiles\":[\"../out/s.js\"]}'",
            vec![],
        ),
        (
            "a spec file operand",
            "npx mocha app/a.spec.js out/z.test.js",
            vec![],
        ),
        (
            "--setupFilesAfterEnv",
            "cd app && npx jest --setupFilesAfterEnv ../out/s.js",
            vec![],
        ),
        (
            "--testEnvironment=",
            "cd app && npx jest --testEnvironment=../out/env.js",
            vec![],
        ),
        (
            "vitest --dir not there yet",
            "cd app && npx vitest run --dir ../out/t",
            vec![],
        ),
        (
            "a lone surrogate in package.json",
            jest,
            vec![(
                "app/package.json",
                "{\"name\":\"app\",\"description\":\"\\ud800\",\"jest\":{\"setupFiles\":[\"../out/s.js\"]}}\n",
            )],
        ),
        (
            "a missing folder's ..",
            jest,
            vec![(
                "app/jest.config.json",
                "{\"setupFiles\":[\"<rootDir>/nope/../../out/s.js\"]}\n",
            )],
        ),
        (
            "--rootDir through a missing folder",
            "cd app && npx jest --rootDir nope/../..",
            vec![],
        ),
        (
            "setsid",
            "cd app && setsid -w npx jest --config ../out/c.json",
            vec![],
        ),
        (
            "ionice",
            "cd app && ionice -c 3 npx jest --config ../out/c.json",
            vec![],
        ),
        (
            "make -C",
            "make -B -s -C app test",
            vec![
                ("app/Makefile", "test:\n\tnpx jest\n"),
                (
                    "app/jest.config.json",
                    "{\"setupFiles\":[\"../out/s.js\"]}\n",
                ),
            ],
        ),
        (
            "a shell script's cd",
            "sh run.sh",
            vec![
                ("run.sh", "cd app; npx jest\n"),
                (
                    "app/jest.config.json",
                    "{\"setupFiles\":[\"../out/s.js\"]}\n",
                ),
            ],
        ),
        (
            "a Python grader",
            "python3 grade.py",
            vec![
                (
                    "grade.py",
                    "import subprocess\nsubprocess.run(['npx', 'jest'], cwd='app')\n",
                ),
                (
                    "app/jest.config.json",
                    "{\"setupFiles\":[\"../out/s.js\"]}\n",
                ),
            ],
        ),
        (
            "mocha's paths from where it runs",
            "cd app/sub && npx mocha ../a.spec.js",
            vec![
                ("app/sub/.keep", ""),
                ("app/.mocharc.yml", "require: ../../out/x.js\n"),
            ],
        ),
        (
            "a jest projects glob",
            jest,
            vec![
                (
                    "app/jest.config.json",
                    "{\"projects\":[\"<rootDir>/packages/*\"]}\n",
                ),
                (
                    "app/packages/p/jest.config.json",
                    "{\"setupFiles\":[\"../../../out/s.js\"]}\n",
                ),
            ],
        ),
        (
            "require(path.join(__dirname, 'paths'))",
            mocha,
            vec![
                (
                    "app/.mocharc.js",
                    "const path = require('path');\nmodule.exports = require(path.join(__dirname, 'paths'))\n",
                ),
                (
                    "app/paths.js",
                    "module.exports = { require: ['../out/x.js'] }\n",
                ),
            ],
        ),
    ];
    let honest: Vec<Case> = vec![
        (
            "path.join(__dirname, '..', 'shared')",
            jest,
            vec![(
                "app/jest.config.js",
                "const path = require('path');\nmodule.exports = { moduleNameMapper: { '^@shared/(.*)$': path.join(__dirname, '..', 'shared', '$1') } };\n",
            )],
        ),
        (
            "vite's base: '/'",
            "cd app && npx vitest run --configLoader runner",
            vec![("app/vite.config.mjs", "export default { base: '/' }\n")],
        ),
        (
            "--coverageDirectory ../out",
            "cd app && npx jest --coverage --coverageDirectory ../out",
            vec![],
        ),
        (
            "process.env.CI as a condition",
            jest,
            vec![(
                "app/jest.config.js",
                "module.exports = { reporters: process.env.CI ? ['default', 'github-actions'] : ['default'] };\n",
            )],
        ),
        (
            "import.meta.dirname",
            "cd app && npx vitest run --configLoader runner",
            vec![(
                "app/vitest.config.mjs",
                "export default { resolve: { alias: { '@': `${import.meta.dirname}/src` } } };\n",
            )],
        ),
        (
            ".toString() of a number",
            jest,
            vec![(
                "app/jest.config.js",
                "const os = require('os');\nmodule.exports = { maxWorkers: (os.cpus().length / 2).toString() };\n",
            )],
        ),
        (
            "a proxy's rewrite",
            "cd app && npx vitest run --configLoader runner",
            vec![(
                "app/vite.config.mjs",
                "export default { server: { proxy: { '/api': { target: 'http://localhost:3000', rewrite: (p) => p.replace(/^\\/api/, '') } } } };\n",
            )],
        ),
        (
            "a reporter's output file",
            "cd app && npx vitest run --reporter=junit --outputFile.junit=../out/junit.xml",
            vec![],
        ),
        (
            "node's script's own arguments",
            "node app/grade.js out/answer.txt",
            vec![("app/grade.js", "process.exit(1)\n")],
        ),
        (
            "a Python grader beside a plain project",
            "python3 grade.py",
            vec![
                ("grade.py", "raise SystemExit(1)\n"),
                (
                    "app/jest.config.json",
                    "{\"testMatch\":[\"<rootDir>/**/*.test.js\"]}\n",
                ),
            ],
        ),
    ];
    judge(&base, attacks, honest, true);
}

/// Review 98 (helper-161, 35 attacks on review 97's fixes; 33 proved, 32 PASSed a failing
/// agent under `gate run`, six of them refused before review 97): `path.join(__dirname, '..',
/// 'out', 'x.js')` and `path.resolve` read part by part; a string method on a variable
/// however declared, a member, `?.`, `['method']`; a no-code key read back by
/// `Object.values` or spelled with an escape; a `/` after `}` or a keyword-named property;
/// `<!--` in a module; a script's `cd`, `$npm_package_config_…`, `-w`, `npx npm`; a
/// shell script's or grader's `npm test`; a hidden folder; a perl grader; `..` after a link
/// in a jest configuration. Each is refused when the plan is loaded. The honest plans it
/// found refused are accepted: a script `npm test` does not run, `c8`/`nyc`/playwright's
/// report folders, esbuild's `--outfile`, a key named in a comment, a `.map` on an array.
#[test]
fn rev98_node_configurations_path_calls_receivers_scripts_and_walks() {
    let (mocha, jest) = (APP_MOCHA, APP_JEST);
    let base: Vec<(&str, &str)> = APP_BASE.to_vec();
    let mocharc = |js: &'static str| vec![("app/.mocharc.js", js)];
    let script = |body: &'static str| vec![("app/package.json", body)];
    let attacks: Vec<Case> = vec![
        (
            "path.join's parts",
            mocha,
            mocharc(
                "const path = require('path');\nmodule.exports = { require: path.join(__dirname, '..', 'out', 'x.js') }\n",
            ),
        ),
        (
            "path.resolve's parts",
            mocha,
            mocharc(
                "const p = require('path');\nmodule.exports = { require: p.resolve('..', 'out', 'x.js') }\n",
            ),
        ),
        (
            "jest setupFiles by path.resolve",
            jest,
            vec![(
                "app/jest.config.js",
                "const path = require('path');\nmodule.exports = { setupFiles: [path.resolve(__dirname, '..', 'out', 's.js')] }\n",
            )],
        ),
        (
            "reduceRight",
            mocha,
            mocharc(
                "module.exports = { require: ['../', 'out/x.js'].reduceRight((a, b) => b.concat(a)) }\n",
            ),
        ),
        (
            "a later declarator",
            mocha,
            mocharc("let a, b = '../OUT/x.js';\nmodule.exports = { require: b.toLowerCase() }\n"),
        ),
        (
            "a destructured variable",
            mocha,
            mocharc(
                "const { b } = { b: '../OUT/x.js' };\nmodule.exports = { require: b.toLowerCase() }\n",
            ),
        ),
        (
            "a member",
            mocha,
            mocharc(
                "const o = { b: '../OUT/x.js' };\nmodule.exports = { require: o.b.toLowerCase() }\n",
            ),
        ),
        (
            "?.",
            mocha,
            mocharc("const b = '../OUT/x.js';\nmodule.exports = { require: b?.toLowerCase() }\n"),
        ),
        (
            "['toLowerCase']",
            mocha,
            mocharc("const b = '../OUT/x.js';\nmodule.exports = { require: b['toLowerCase']() }\n"),
        ),
        (
            "Object.values",
            mocha,
            mocharc(
                "const o = { timeout: '../out/x.js' };\nmodule.exports = { require: Object.values(o) }\n",
            ),
        ),
        (
            "an escaped key",
            mocha,
            mocharc(
                "const o = { '\\u0074imeout': '../out/x.js' };\nmodule.exports = { require: [o.timeout] }\n",
            ),
        ),
        (
            "a / after }",
            mocha,
            mocharc("module.exports = { require: {} / 1 ? 0 : '../out/x.js' }\n"),
        ),
        (
            "a property named return",
            mocha,
            mocharc(
                "const o = { return: 1 }\nmodule.exports = { require: o.return / 1 ? '../out/x.js' : 0 } // /\n",
            ),
        ),
        (
            "<!-- in a module",
            "cd app && npx vitest run",
            vec![(
                "app/vitest.config.mjs",
                "let y = 1; if (0 <!--y) {} export default { test: { setupFiles: ['../out/v.mjs'] } }\n",
            )],
        ),
        (
            "a script's cd",
            "cd app && npm test",
            vec![
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"cd sub && mocha ../a.spec.js\"}}\n",
                ),
                ("app/sub/.mocharc.yml", "require: ../../out/x.js\n"),
            ],
        ),
        (
            "$npm_package_config_…",
            "cd app && npm test",
            script(
                "{\"name\":\"app\",\"config\":{\"pre\":\"../out/x.js\"},\"scripts\":{\"test\":\"mocha --require $npm_package_config_pre a.spec.js\"}}\n",
            ),
        ),
        (
            "npm test -w app",
            "npm test -w app",
            vec![
                (
                    "package.json",
                    "{\"name\":\"root\",\"private\":true,\"workspaces\":[\"app\"]}\n",
                ),
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha --require ../out/x.js a.spec.js\"}}\n",
                ),
            ],
        ),
        (
            "npx npm test",
            "cd app && npx npm test",
            script(
                "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha --require ../out/x.js a.spec.js\"}}\n",
            ),
        ),
        (
            "a shell script's npm test",
            "sh run.sh",
            vec![
                ("run.sh", "cd app && npm test\n"),
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha --config cfg.yml a.spec.js\"}}\n",
                ),
                ("app/cfg.yml", "require: ../out/x.js\n"),
            ],
        ),
        (
            "a hidden folder",
            "python3 grade.py",
            vec![
                ("grade.py", "raise SystemExit(1)\n"),
                (".grader/.mocharc.yml", "require: ../out/x.js\n"),
            ],
        ),
        (
            "a perl grader",
            "perl grade.pl",
            vec![
                ("grade.pl", "exit 1;\n"),
                ("app/.mocharc.yml", "require: ../out/x.js\n"),
            ],
        ),
    ];
    let honest: Vec<Case> = vec![
        (
            "a script npm test does not run",
            "cd app && npm test",
            script(
                "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha a.spec.js\",\"lint\":\"npx eslint ../out\"}}\n",
            ),
        ),
        (
            "esbuild's --outfile",
            "cd app && npm test",
            script(
                "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha a.spec.js\",\"build\":\"npx esbuild src/index.js --bundle --outfile=../out/app.js\"}}\n",
            ),
        ),
        (
            "c8's --reports-dir",
            "cd app && npx c8 --reports-dir=../out/cov mocha a.spec.js",
            vec![],
        ),
        (
            "nyc's --report-dir",
            "cd app && npx nyc --report-dir ../out/cov mocha a.spec.js",
            vec![],
        ),
        (
            "playwright's --output",
            "cd app && npx playwright test --output=../out/pw",
            vec![],
        ),
        (
            "a key named in a comment",
            jest,
            vec![(
                "app/jest.config.js",
                "// coverageDirectory: CI uploads the report from out/\nmodule.exports = { collectCoverage: true, coverageDirectory: '../out/coverage' }\n",
            )],
        ),
        (
            "a .map on an array",
            "cd app && npx vitest run --configLoader runner",
            vec![(
                "app/vitest.config.mjs",
                "const browsers = ['chromium', 'firefox']\nexport default { test: { browser: { enabled: false, instances: browsers.map(browser => ({ browser })) } } }\n",
            )],
        ),
        (
            "path.posix.join of the source",
            jest,
            vec![(
                "app/jest.config.js",
                "const path = require('path');\nmodule.exports = { roots: [path.posix.join(__dirname, 'src')] }\n",
            )],
        ),
    ];
    judge(&base, attacks, honest, false);
}

/// Review 99 (helper-162, 37 attacks on review 98's fixes, all proved and accepted, 36 PASSed
/// a failing agent under `gate run`; ten honest configurations review 98 had refused), and
/// review 100 (helper-164, on this fix's first form). In a configuration in code, a bare
/// string named like a folder the trials write is refused unless it sits under a key that
/// names where to write (a variable part of `path.join`); a string method on a literal, an
/// array or a call's result counts always, on a name only where the file's strings hold such
/// a word or a `..`; an escaped key or name, or `Object.keys` of the object that holds one,
/// launders it; regular expressions after a spread or `extends`; a package manager's scripts
/// from the folder above, with `--workspaces=true`, through a script's own `cd sub && npm
/// test`, `npm --prefix`, `node t.js`, backquotes, `NODE_PATH`, npm's implicit `node
/// server.js`; the walk through `npx node`, `npm exec --`, `npx sh` and `tclsh`. Path-like
/// strings below the configuration's folder, addresses and prose stay accepted.
#[test]
fn rev99_node_configurations_pieces_scripts_from_above_and_the_walk() {
    let (mocha, jest) = (APP_MOCHA, APP_JEST);
    let base: Vec<(&str, &str)> = [APP_BASE, &[("app/ci.yml", "require: ../out/x.js\n")]].concat();
    let mocharc = |js: &'static str| vec![("app/.mocharc.js", js)];
    let scripts = |body: &'static str| vec![("app/package.json", body)];
    let grader = |line: &'static str, files: Vec<(&'static str, &'static str)>| {
        let mut all = vec![("app/.mocharc.yml", "require: ../out/x.js\n")];
        all.extend(files);
        (line, all)
    };
    let (g32, f32) = grader(
        "npx node grade.js",
        vec![(
            "grade.js",
            "require('child_process').spawnSync('npx', ['mocha', 'a.spec.js'], {cwd: 'app'})\n",
        )],
    );
    let (g33, f33) = grader(
        "npm exec -- node grade.js",
        vec![(
            "grade.js",
            "require('child_process').spawnSync('npx', ['mocha', 'a.spec.js'], {cwd: 'app'})\n",
        )],
    );
    let (g34, f34) = grader(
        "npx sh grade.sh",
        vec![("grade.sh", "cd app && npx mocha a.spec.js\n")],
    );
    let (g35, f35) = grader(
        "tclsh grade.tcl",
        vec![("grade.tcl", "cd app\nexec npx mocha a.spec.js\n")],
    );
    let attacks: Vec<Case> = vec![
        (
            "a variable part of path.join",
            mocha,
            mocharc(
                "const path = require('path'); const up = '..';\nmodule.exports = { require: path.join(up, 'out', 'x.js') }\n",
            ),
        ),
        (
            "a part starting with a slash",
            mocha,
            mocharc(
                "module.exports = { require: require('path').join(__dirname, '..', 'out', '/x.js') }\n",
            ),
        ),
        (
            "Object.keys of the holder",
            mocha,
            mocharc(
                "const o = { timeout: '../out/x.js' };\nmodule.exports = { require: Object.keys(o).map(k => o[k]) }\n",
            ),
        ),
        (
            "a key read by an escaped name",
            mocha,
            mocharc(
                "const o = { timeout: '../out/x.js' };\nmodule.exports = { require: o['\\x74imeout'] }\n",
            ),
        ),
        (
            "a reversed literal",
            mocha,
            mocharc(
                "const path = require('path'), up = path.dirname(__dirname);\nmodule.exports = { require: path.join(up, 'tuo'.split('').reverse().join(''), 'x.js') }\n",
            ),
        ),
        (
            "an array of letters joined",
            mocha,
            mocharc(
                "const path = require('path'), up = path.dirname(__dirname);\nmodule.exports = { require: path.join(up, ['o', 'u', 't'].join(''), 'x.js') }\n",
            ),
        ),
        (
            "an escaped name in code",
            mocha,
            mocharc(
                "const o = { ignore: ['../out/x.js'] }\nmodule.exports = { require: o.ig\\u006eore }\n",
            ),
        ),
        (
            "a regex after a spread",
            mocha,
            mocharc(
                "const b = [.../'/.source], c = '../out/x.js' // '\nmodule.exports = { require: c }\n",
            ),
        ),
        (
            "a regex after extends",
            mocha,
            mocharc(
                "class K extends /'/.constructor {}; const c = '../out/x.js' // '\nmodule.exports = { require: c }\n",
            ),
        ),
        ("npm test from a folder below", "cd app/sub && npm test", {
            let mut f = scripts(
                "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha --config ci.yml a.spec.js\"}}\n",
            );
            f.push(("app/sub/.keep", ""));
            f
        }),
        (
            "--workspaces=true",
            "npm test --workspaces=true",
            vec![
                (
                    "package.json",
                    "{\"name\":\"root\",\"workspaces\":[\"app\"]}\n",
                ),
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha --config ci.yml a.spec.js\"}}\n",
                ),
            ],
        ),
        (
            "a script's cd and npm test",
            "cd app && npm test",
            vec![
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"cd sub && npm test\"}}\n",
                ),
                (
                    "app/sub/package.json",
                    "{\"name\":\"sub\",\"scripts\":{\"test\":\"mocha --config ci.yml ../a.spec.js\"}}\n",
                ),
                ("app/sub/ci.yml", "require: ../../out/x.js\n"),
            ],
        ),
        (
            "a script's npm --prefix",
            "cd app && npm test",
            vec![
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"npm --prefix sub test\"}}\n",
                ),
                (
                    "app/sub/package.json",
                    "{\"name\":\"sub\",\"scripts\":{\"test\":\"mocha --config ci.yml ../a.spec.js\"}}\n",
                ),
                ("app/sub/ci.yml", "require: ../../out/x.js\n"),
            ],
        ),
        (
            "a script's node that runs npm",
            "cd app && npm test",
            vec![
                (
                    "app/package.json",
                    "{\"name\":\"app\",\"scripts\":{\"test\":\"node t.js\",\"unit\":\"mocha --config ci.yml a.spec.js\"}}\n",
                ),
                (
                    "app/t.js",
                    "require('child_process').spawnSync('npm', ['run', 'unit'])\n",
                ),
            ],
        ),
        (
            "backquotes in a script",
            "cd app && npm test",
            scripts(
                "{\"name\":\"app\",\"scripts\":{\"test\":\"mocha --require `cat req.txt` a.spec.js\"}}\n",
            ),
        ),
        (
            "NODE_PATH in a script",
            "cd app && npm test",
            scripts(
                "{\"name\":\"app\",\"scripts\":{\"test\":\"NODE_PATH=../out mocha --require x a.spec.js\"}}\n",
            ),
        ),
        (
            "npm start's node server.js",
            "cd app && npm start",
            vec![
                (
                    "app/server.js",
                    "require('child_process').spawnSync('npx', ['mocha', '../a.spec.js'], {cwd: __dirname + '/sub'})\n",
                ),
                ("app/sub/.mocharc.yml", "require: ../../out/x.js\n"),
            ],
        ),
        ("npx node grader", g32, f32),
        ("npm exec -- node grader", g33, f33),
        ("npx sh grader", g34, f34),
        ("tclsh grader", g35, f35),
    ];
    let honest: Vec<Case> = vec![
        (
            "a member's replace",
            jest,
            vec![(
                "app/jest.config.js",
                "const pkg = require('./package.json')\nmodule.exports = { displayName: pkg.name.replace('@acme/', ''), testEnvironment: 'node' }\n",
            )],
        ),
        (
            "__dirname's split",
            jest,
            vec![(
                "app/jest.config.js",
                "const path = require('path')\nmodule.exports = { displayName: __dirname.split(path.sep).pop() }\n",
            )],
        ),
        (
            "process.argv.slice",
            jest,
            vec![(
                "app/jest.config.js",
                "const ci = process.argv.slice(2).includes('--ci')\nmodule.exports = { bail: ci ? 1 : 0 }\n",
            )],
        ),
        (
            "coverageDirectory by path.join",
            jest,
            vec![(
                "app/jest.config.js",
                "const path = require('path')\nmodule.exports = { coverageDirectory: path.join(__dirname, '..', 'out', 'coverage') }\n",
            )],
        ),
        (
            "an escape and coverageDirectory",
            jest,
            vec![(
                "app/jest.config.js",
                "module.exports = { displayName: '\\u2713 unit', coverageDirectory: '../out/coverage' }\n",
            )],
        ),
        (
            "Object.entries of another object",
            jest,
            vec![(
                "app/jest.config.js",
                "const flags = { __DEV__: true }\nmodule.exports = { globals: Object.fromEntries(Object.entries(flags)), coverageDirectory: '../out/coverage' }\n",
            )],
        ),
        (
            "a $ count in a script",
            "cd app && npm test",
            scripts(
                "{\"name\":\"app\",\"scripts\":{\"test\":\"jest --maxWorkers=${JEST_WORKERS:-2}\"}}\n",
            ),
        ),
        (
            "a $ jobs in a script",
            "cd app && npm test",
            scripts(
                "{\"name\":\"app\",\"config\":{\"jobs\":\"2\"},\"scripts\":{\"test\":\"mocha --parallel --jobs $npm_package_config_jobs a.spec.js\"}}\n",
            ),
        ),
        (
            "vite's mode parameter",
            "cd app && npx jest",
            vec![(
                "app/vite.config.js",
                "import { defineConfig } from 'vite'\nexport default defineConfig(({ mode }) => ({ define: { __MODE__: JSON.stringify(mode.toUpperCase()) } }))\n",
            )],
        ),
        (
            "a spec glob of tests importing the code under test",
            "cd app && npx mocha",
            vec![
                ("app/.mocharc.yml", "spec: 'test/**/*.spec.js'\n"),
                (
                    "app/test/sum.spec.js",
                    "const sum = require('../../out/sum');\nit('adds', () => { if (sum(1, 2) !== 3) throw new Error('no') })\n",
                ),
            ],
        ),
        (
            "paths below the configuration's folder named like the folder the trials write",
            jest,
            vec![(
                "app/jest.config.js",
                "module.exports = { collectCoverageFrom: ['out/**/*.js', '!out/**/*.d.ts'], moduleNameMapper: { '^@/(.*)$': '<rootDir>/out/$1' }, testMatch: ['**/out/**/*.test.js'] }\n",
            )],
        ),
        (
            "an address and prose",
            jest,
            vec![(
                "app/jest.config.js",
                "console.log('writing out to the console')\nmodule.exports = { testEnvironmentOptions: { url: 'http://localhost/out' } }\n",
            )],
        ),
    ];
    judge(&base, attacks, honest, false);
}

/// Issue 29's over-refusal audit (helper-163, 63 honest projects): two layouts that `gate
/// check` accepted FAILed every trial of a correct agent, since the check could not write
/// what its tool writes. Both are refused when the plan is loaded, saying what works:
/// `cargo test` as a check (its target folder and `Cargo.lock`), vitest with a
/// configuration in code (bundled into `node_modules/.vite-temp`) unless `--configLoader
/// runner` says otherwise; neither with `policy.sandbox: off`.
#[test]
fn a_check_that_cannot_write_what_its_tool_writes_is_refused_not_failed() {
    let f = task(
        "cargo test --quiet",
        &[(
            "Cargo.toml",
            "[package]\nname = \"calc\"\nversion = \"0.1.0\"\n",
        )],
    );
    let out = exits(&f, 2, "cargo test");
    assert!(
        both(&out).contains("runs `cargo test`, which writes its target folder"),
        "{}",
        both(&out)
    );
    assert!(both(&out).contains("policy.sandbox: off"), "{}", both(&out));
    let vite = [
        (
            "app/package.json",
            "{\"name\":\"app\",\"scripts\":{\"test\":\"vitest run\"}}\n",
        ),
        (
            "app/vitest.config.mjs",
            "export default { test: { include: ['test/**/*.test.js'] } }\n",
        ),
    ];
    let f = task("cd app && npm test", &vite);
    let out = exits(&f, 2, "vitest with a configuration in code");
    assert!(
        both(&out).contains("--configLoader runner"),
        "{}",
        both(&out)
    );
    let f = task("cd app && npx vitest run --configLoader runner", &vite);
    exits(&f, 0, "vitest with --configLoader runner");
    let f = task("cd app && npx vitest run", &vite[..1]);
    exits(&f, 0, "vitest with no configuration file");
    // With the box off, both run (the tools write where they will).
    let off = format!(
        "{}policy: {{sandbox: off}}\n",
        plan("", "cargo test --quiet")
    );
    let f = Fixture::new(&off);
    write_files(&f, &[("agent.sh", ""), ("Cargo.toml", "")]);
    check(&f).code(0);
}
