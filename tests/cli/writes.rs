//! A task's `writes:`: the folders beneath its `cwd` its trials write. The rest of the task's
//! folder is read-only to them (Landlock grants only those folders), so a trial cannot
//! rewrite an answer key, a test, a runner's configuration or a package there: a wall that
//! reads no text, where the readings of a node check's configuration are a net (issue 29,
//! reviews 56 and 57).

use crate::common::*;
use predicates::prelude::*;

/// A task whose agent writes the wrong answer in `work/answer.txt` and then tries to make
/// it right by rewriting the answer key `expected.txt` beside the plan (a data file, which
/// no reading of the check line protects) and to leave a file at the top of the folder.
fn answer_key_task(writes: &str) -> Fixture {
    let f = Fixture::new(&plan(writes, "cmp -s work/answer.txt expected.txt"));
    write_files(
        &f,
        &[
            ("expected.txt", "right\n"),
            ("work/.keep", ""),
            (
                "agent.sh",
                "echo wrong > work/answer.txt\necho wrong > expected.txt\ntouch stray.txt\nexit 0\n",
            ),
        ],
    );
    f
}

#[test]
fn writes_leaves_the_rest_of_the_task_folder_read_only_to_the_trials() {
    for no_mounts in box_modes(&current_test()) {
        // Without `writes:` the trial rewrites the answer key and a wrong answer PASSes: the
        // attack is real.
        let open = answer_key_task("");
        run_in(&open, no_mounts).code(0);
        assert_eq!(read(&open.path("expected.txt")), "wrong\n");

        let f = answer_key_task("    writes: [work]\n");
        let out = run_in(&f, no_mounts).code(1).get_output().clone();
        let text = both(&out);
        assert!(text.contains("agent  FAIL"), "{text}");
        assert_eq!(
            read(&f.path("expected.txt")),
            "right\n",
            "mounts {no_mounts}"
        );
        assert!(!f.path("stray.txt").exists(), "mounts {no_mounts}");
        assert_eq!(read(&f.path("work/answer.txt")), "wrong\n");
        // Every report says so, and the ledger's walls record it.
        assert!(
            text.contains(
                "the trials of 1 task may write only `work` in their task's folder (`writes:`), \
                 the rest of it read-only"
            ),
            "{text}"
        );
        let header = read(&f.ledger_path());
        let first = header.lines().next().unwrap();
        assert!(first.contains(r#""writes":{"agent":["work"]}"#), "{first}");
    }
}

/// A default plan's ledger records nothing new: the walls of a task that writes its whole
/// folder are the same bytes as before `writes:`.
#[test]
fn a_plan_without_writes_records_no_writes() {
    let f = Fixture::new(&plan("", "true"));
    write_files(&f, &[("agent.sh", "exit 0\n")]);
    f.run(&[])
        .code(0)
        .stdout(predicate::str::contains("writes:").not());
    let ledger = read(&f.ledger_path());
    assert!(!ledger.contains("\"writes\""), "{ledger}");
}

#[test]
fn writes_shows_in_the_json_and_markdown_reports() {
    if box_modes(&current_test()).is_empty() {
        return;
    }
    let f = answer_key_task("    writes: [work, ./work/, sub/deeper]\n");
    std::fs::create_dir_all(f.path("sub/deeper")).unwrap();
    f.run(&["--json", "out/r.json", "--summary", "out/r.md"])
        .code(1);
    let json: serde_json::Value = serde_json::from_str(&read(&f.path("out/r.json"))).expect("json");
    let walls = &json["ledgers"][0]["sandbox"][0];
    assert_eq!(
        walls["writes"],
        serde_json::json!({"agent": ["sub/deeper", "work"]}),
        "{json}"
    );
    let md = read(&f.path("out/r.md"));
    assert!(
        md.contains("may write only `sub/deeper`, `work` in their task's folder (`writes:`)"),
        "{md}"
    );
}

/// An empty list: the trials write nothing in the task's folder (their `TMPDIR` and result
/// file only).
#[test]
fn writes_nothing_keeps_the_whole_task_folder_read_only() {
    if box_modes(&current_test()).is_empty() {
        return;
    }
    let f = Fixture::new(&plan("    writes: []\n", "test ! -e made.txt"));
    write_files(
        &f,
        &[(
            "agent.sh",
            "touch made.txt; echo x > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"; exit 0\n",
        )],
    );
    let out = f.run(&[]).code(0).get_output().clone();
    assert!(
        both(&out).contains("the trials of 1 task may write nothing in their task's folder"),
        "{}",
        both(&out)
    );
    assert!(!f.path("made.txt").exists());
}

/// What `writes:` refuses at load (exit 2, the plan's file:line:col and the fix).
#[test]
fn writes_entries_that_name_no_folder_beneath_the_task_are_refused_at_load() {
    let cases: &[(&str, &str)] = &[
        ("[/tmp]", "is not relative"),
        ("[\"~/x\"]", "is not relative"),
        ("[../up]", "has a `..`"),
        ("[work/../..]", "has a `..`"),
        (
            "[missing]",
            "does not exist: create the folder before the run",
        ),
        ("[file.txt]", "is not a folder"),
        ("[out]", "leads outside the task's folder"),
        ("[\"a b\"]", "may hold only ASCII letters and digits"),
        ("[\"\"]", "is empty"),
    ];
    for (value, why) in cases {
        let f = Fixture::new(&plan(&format!("    writes: {value}\n"), "true"));
        write_files(&f, &[("agent.sh", "exit 0\n"), ("file.txt", "")]);
        let elsewhere = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), f.path("out")).unwrap();
        f.run(&[])
            .code(2)
            .stderr(predicate::str::contains("plan.yaml:"))
            .stderr(predicate::str::contains(*why))
            .stderr(predicate::str::contains("task `agent`: `writes` entry"));
    }
}

#[test]
fn writes_with_the_box_off_a_junit_selection_or_results_it_cannot_write_is_refused() {
    let off = Fixture::new(&format!(
        "{}policy: {{sandbox: off}}\n",
        plan("    writes: [work]\n", "true")
    ));
    write_files(&off, &[("agent.sh", "exit 0\n"), ("work/.keep", "")]);
    off.run(&[]).code(2).stderr(predicate::str::contains(
        "`writes` narrows what the box lets the trials write, and `policy.sandbox: off` turns the box off",
    ));

    let junit = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: a\n    junit: \"*\"\n    writes: [work]\n",
    );
    junit
        .run(&[])
        .code(2)
        .stderr(predicate::str::contains("so `writes` does not apply"));

    let suite = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: s\n    suite: {run: \"true\", results: reports/junit.xml}\n    writes: [work]\n",
    );
    write_files(&suite, &[("work/.keep", ""), ("reports/.keep", "")]);
    suite.run(&[]).code(2).stderr(predicate::str::contains(
        "`suite.results` `reports/junit.xml` is not in a folder `writes` names",
    ));
}

/// Without Landlock nothing could enforce `writes:`, and the walls of node checks look only
/// where the trials write: no trial is run (exit 4), and `gate check` says it would refuse.
#[test]
fn writes_without_landlock_runs_no_trial() {
    let f = answer_key_task("    writes: [work]\n");
    f.command(&[])
        .env("GATE_SANDBOX_MAX_ABI", "0")
        .assert()
        .code(4)
        .stderr(predicate::str::contains(
            "task `agent` names the folders its trials write (`writes:`), which only Landlock's filesystem wall enforces",
        ))
        .stderr(predicate::str::contains("no trial was run"));
    assert!(!f.path("work/answer.txt").exists());
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .env("GATE_SANDBOX_MAX_ABI", "0")
        .assert()
        .stderr(predicate::str::contains(
            "sandbox: `gate run` would refuse this plan here: task `agent` names the folders",
        ));
}

/// A compare task's base side writes the same folders of base's checkout; each must exist
/// there, and base's trials cannot write the rest of base's folder.
#[test]
fn a_compare_tasks_base_writes_the_same_folders_of_its_own_checkout() {
    if box_modes(&current_test()).is_empty() {
        return;
    }
    let text = "version: 1\nbase: {cwd: ../base}\ntasks:\n  - id: c\n    run: sh agent.sh\n    check: cmp -s work/answer.txt expected.txt\n    writes: [work]\n    sampling: {compare: {odds_ratio: 4, max_pairs: 30}}\n";
    let root = tempfile::tempdir().unwrap();
    let head = root.path().join("head");
    let base = root.path().join("base");
    for (dir, answer) in [(&head, "right"), (&base, "wrong")] {
        std::fs::create_dir_all(dir.join("work")).unwrap();
        std::fs::write(dir.join("plan.yaml"), text).unwrap();
        std::fs::write(dir.join("expected.txt"), "right\n").unwrap();
        std::fs::write(
            dir.join("agent.sh"),
            format!("echo {answer} > work/answer.txt\necho wrong > expected.txt\nexit 0\n"),
        )
        .unwrap();
    }
    std::fs::remove_dir(base.join("work")).unwrap();
    gate()
        .current_dir(&head)
        .args(["run", "plan.yaml", "--no-step-summary"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "`writes` entry `work` is not a folder beneath base's `cwd`",
        ));
    std::fs::create_dir_all(base.join("work")).unwrap();
    let out = gate()
        .current_dir(&head)
        .args(["run", "plan.yaml", "--no-step-summary"])
        .output()
        .unwrap();
    assert!(
        both(&out).contains("may write only `work` in their task's folder"),
        "{}",
        both(&out)
    );
    // Neither side's trials rewrote their answer key.
    assert_eq!(read(&head.join("expected.txt")), "right\n");
    assert_eq!(read(&base.join("expected.txt")), "right\n");
    assert_eq!(read(&base.join("work/answer.txt")), "wrong\n");
}

/// With the rest of the task's folder read-only, a grader there is one the trials cannot
/// rewrite: the refusal of a grader directly in a folder the trials write, and the warning
/// of a runner whose definition they could rewrite, no longer apply.
#[test]
fn a_grader_and_a_runner_in_the_read_only_part_of_the_folder_are_accepted() {
    let refused = Fixture::new(&plan("", "sh check.sh"));
    write_files(
        &refused,
        &[("agent.sh", "exit 0\n"), ("check.sh", "exit 0\n")],
    );
    check(&refused)
        .code(2)
        .stderr(predicate::str::contains("a folder the trials write"));
    let f = Fixture::new(&plan("    writes: [work]\n", "sh check.sh"));
    write_files(
        &f,
        &[
            ("agent.sh", "exit 0\n"),
            ("check.sh", "exit 0\n"),
            ("work/.keep", ""),
        ],
    );
    check(&f).code(0);

    let warned = Fixture::new(&plan("", "npm test"));
    write_files(
        &warned,
        &[("agent.sh", "exit 0\n"), ("package.json", "{}\n")],
    );
    check(&warned).stderr(
        predicate::str::contains("warning: task `agent`: `check:` runs `npm` in `").and(
            predicate::str::contains("list the folders the trials write in the task's `writes:`"),
        ),
    );
    let quiet = Fixture::new(&plan("    writes: [work]\n", "npm test"));
    write_files(
        &quiet,
        &[
            ("agent.sh", "exit 0\n"),
            ("package.json", "{}\n"),
            ("work/.keep", ""),
        ],
    );
    check(&quiet).stderr(predicate::str::contains("warning").not());
}

/// scripts/node-runners.sh's `node_modules`, where mocha is; `None` (the test says it
/// skipped) where it is not installed.
fn mocha() -> Option<std::path::PathBuf> {
    let modules =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/node-runners/node_modules");
    if modules.join(".bin/mocha").exists() && modules.join("mocha/bin/mocha.js").exists() {
        return Some(modules);
    }
    skip_or_fail(
        &current_test(),
        "node",
        "no mocha in target/node-runners (run scripts/node-runners.sh)",
    );
    None
}

/// A node check: the agent's `.mocharc.yml` would point mocha at a test of its own. With
/// `writes: [src]` it cannot write it, and the wrong answer stays a FAIL (without, the
/// configuration wall refuses the check: no verdict).
#[test]
fn a_node_checks_configuration_outside_writes_cannot_be_written() {
    let Some(modules) = mocha() else {
        return;
    };
    let modes = box_modes(&current_test());
    for no_mounts in modes {
        let f = Fixture::new(&plan("    writes: [src]\n", "npx mocha test/"));
        write_files(
            &f,
            &[
                ("package.json", "{\"name\": \"w\", \"private\": true}\n"),
                ("src/add.js", "exports.add = (a, b) => a - b;\n"),
                (
                    "test/add.test.js",
                    "const assert = require('assert');\nconst { add } = require('../src/add');\ndescribe('add', () => { it('adds', () => assert.strictEqual(add(2, 3), 5)); });\n",
                ),
                (
                    "agent.sh",
                    "echo \"it('passes', () => {});\" > src/fake.test.js\nprintf 'spec: [src/fake.test.js]\\n' > .mocharc.yml\nexit 0\n",
                ),
            ],
        );
        std::os::unix::fs::symlink(&modules, f.path("node_modules")).unwrap();
        let out = run_in(&f, no_mounts).code(1).get_output().clone();
        assert!(both(&out).contains("agent  FAIL"), "{}", both(&out));
        assert!(!f.path(".mocharc.yml").exists());
    }
}

/// Review 63, 01-03 and 13: with one `writes` folder beneath another (`[work, work/sub]`, or
/// `[work, gen]` with `gen -> work/gen`), a trial replaced the inner folder with a link, and
/// the next attempt's box (a later trial's, or the same trial's check) granted where the
/// link pointed: the answer key beside the plan, or a folder outside the task's. Each root
/// is now granted as resolved when the run started, and one with a link on its way gets
/// the attempt no verdict.
#[test]
fn rev63_01_02_13_a_writes_folder_replaced_by_a_link_grants_nothing_beyond_it() {
    let outside = tempfile::tempdir().unwrap();
    let escape = outside.path().join("escaped.txt");
    for no_mounts in box_modes(&current_test()) {
        for (writes, inner) in [
            ("[work, work/sub]", "work/sub"),
            ("[work, gen]", "work/gen"),
        ] {
            for target in ["..", outside.path().to_str().unwrap()] {
                let text = plan(
                    &format!("    writes: {writes}\n"),
                    "cmp -s work/answer.txt expected.txt",
                )
                .replace("n: 2, c: 0", "n: 3, c: 0");
                let f = Fixture::new(&text);
                let agent = format!(
                    "if [ -L {inner} ]; then echo 41 > expected.txt; echo 41 > {inner}/escaped.txt; \
                     echo 41 > work/answer.txt\n\
                     else rm -rf {inner} && ln -s {target} {inner}; echo 42 > work/answer.txt; fi\n"
                );
                write_files(
                    &f,
                    &[
                        ("expected.txt", "42\n"),
                        (&format!("{inner}/.keep"), ""),
                        ("agent.sh", &agent),
                    ],
                );
                if inner == "work/gen" {
                    std::os::unix::fs::symlink("work/gen", f.path("gen")).unwrap();
                }
                let out = run_in(&f, no_mounts).get_output().clone();
                let text = both(&out);
                // The link is never made, so every trial answers 42 honestly: no trial
                // wrote the key or outside.
                assert_eq!(read(&f.path("expected.txt")), "42\n", "{writes}:\n{text}");
                assert!(!escape.exists(), "{writes} -> {target}:\n{text}");
                // Since review 65 the link cannot be made at all.
                assert!(!f.path(inner).is_symlink(), "{writes} -> {target}:\n{text}");
                // `gen -> work/gen` is recorded and stated as what it is.
                if inner == "work/gen" {
                    assert!(text.contains("may write only `work`, `work/gen`"), "{text}");
                }
            }
        }
    }
}

/// Review 63, 03: the same replacement in a run of one trial, whose own check (a box built
/// after the agent ran) would have written the key through the link.
#[test]
fn rev63_03_the_trials_own_check_gets_no_box_through_a_replaced_folder() {
    for no_mounts in box_modes(&current_test()) {
        let text = plan("    writes: [work, work/sub]\n", "sh grader.sh")
            .replace("n: 2, c: 0", "n: 1, c: 0");
        let f = Fixture::new(&text);
        write_files(
            &f,
            &[
                ("expected.txt", "42\n"),
                ("work/sub/.keep", ""),
                (
                    "grader.sh",
                    "sh work/solve.sh > work/answer.txt && cmp -s work/answer.txt expected.txt\n",
                ),
                (
                    "agent.sh",
                    "printf 'echo 41 > expected.txt; echo 41\\n' > work/solve.sh\nrm -rf work/sub; ln -s .. work/sub\n",
                ),
            ],
        );
        let out = run_in(&f, no_mounts).get_output().clone();
        assert_eq!(out.status.code(), Some(1), "{}", both(&out));
        assert_eq!(read(&f.path("expected.txt")), "42\n");
    }
}

/// The rule that stands behind review 63's fix wherever a trial can make links: a working
/// folder inside `policy.sandbox.writable`, replaced by a link to a folder outside, gets the
/// next attempt no verdict (it granted where the link led, and the trial ran there).
#[test]
fn rev63_a_working_folder_replaced_by_a_link_gets_no_verdict() {
    let outside = tempfile::tempdir().unwrap();
    for no_mounts in box_modes(&current_test()) {
        let f = Fixture::new(&format!(
            "{}policy: {{sandbox: {{writable: [ws]}}}}\n",
            plan("    cwd: ws/app\n", "true")
                .replace("n: 2, c: 0", "n: 3, c: 0")
                // The agent's script outside the folder it replaces (a named script's folder
                // is pinned by the mount layer).
                .replace("run: sh agent.sh", "run: sh ../agent.sh")
        ));
        let agent = format!(
            "if [ -e ../done ]; then echo x > escaped.txt; else touch ../done; cd .. && mv app app0 \
             && ln -s {} app; fi\nexit 0\n",
            outside.path().display()
        );
        write_files(&f, &[("ws/agent.sh", &agent), ("ws/app/.keep", "")]);
        let out = run_in(&f, no_mounts).get_output().clone();
        let text = both(&out);
        assert!(!outside.path().join("escaped.txt").exists(), "{text}");
        // Without the mount layer Landlock itself refuses the rename of a folder it holds a
        // rule on; where the rename and the link were made, no verdict.
        if f.path("ws/app").is_symlink() {
            assert_eq!(out.status.code(), Some(4), "{text}");
            assert!(
                text.contains(
                    "a folder the trials write, is not the folder it was when the run started"
                ),
                "{text}"
            );
        } else {
            assert!(no_mounts, "the link was not made:\n{text}");
        }
    }
}

/// Review 63, 06 (`writes: [dot]` with `dot -> .` said "only `dot`" while the whole folder
/// was the trials'), and `writes: [~]` (a message about deserialising).
#[test]
fn rev63_06_a_writes_entry_is_stated_as_it_resolves_and_a_null_one_is_named() {
    if box_modes(&current_test()).is_empty() {
        return;
    }
    let f = Fixture::new(&plan("    writes: [dot]\n", "true"));
    write_files(&f, &[("agent.sh", "exit 0\n")]);
    std::os::unix::fs::symlink(".", f.path("dot")).unwrap();
    f.run(&[]).code(0).stdout(predicate::str::contains(
        "may write only `.` in their task's folder",
    ));

    let null = Fixture::new(&plan("    writes: [~]\n", "true"));
    null.run(&[])
        .code(2)
        .stderr(predicate::str::contains("plan.yaml:5:"))
        .stderr(predicate::str::contains("a `writes` entry is null (`~`)"));
}

/// Review 63, 16: a node script in a `node_modules` outside every `writes` folder requires
/// names gate's reading does not find there; with the folder read-only no trial can add one,
/// so the line is not refused (it was, naming a `node_modules` "a trial could create").
#[test]
fn rev63_16_a_node_script_in_a_read_only_node_modules_is_not_refused() {
    let Some(modules) = mocha() else {
        return;
    };
    let f = Fixture::new(&plan(
        "    writes: [src]\n",
        "node node_modules/mocha/bin/mocha.js test/",
    ));
    write_files(
        &f,
        &[
            ("package.json", "{\"name\": \"w\", \"private\": true}\n"),
            ("src/add.js", "exports.add = (a, b) => a + b;\n"),
            (
                "test/add.test.js",
                "const assert = require('assert');\nconst { add } = require('../src/add');\ndescribe('add', () => { it('adds', () => assert.strictEqual(add(2, 3), 5)); });\n",
            ),
            ("agent.sh", "exit 0\n"),
        ],
    );
    let copy = std::process::Command::new("cp")
        .args(["-r"])
        .arg(&modules)
        .arg(f.path("node_modules"))
        .status()
        .unwrap();
    assert!(copy.success());
    check(&f).code(0);
    f.run(&[]).code(0);
}

/// Review 64, 03: `cd out/sub && sh ../../graders/check.sh`, with `out/sub` a folder the
/// trials write (below a writable root): a trial made `out/sub` a link, and `../..` led to
/// a grader of its own: a wrong PASS. Without `writes:` a `..` after a `cd` into such a
/// folder is refused at load; into a writable root itself (which no trial can replace) it
/// is not. Under `writes:` no trial can make a link there (review 65), so the line is read
/// and the trick FAILs.
#[test]
fn rev64_03_a_dotdot_after_cd_into_a_folder_a_trial_can_replace_is_refused() {
    let files: &[(&str, &str)] = &[
        ("check.sh", "exit 1\n"),
        ("graders/check.sh", "exit 1\n"),
        ("out/sub/.keep", ""),
        ("expected.txt", "42\n"),
        (
            "agent.sh",
            "mkdir -p out/x/y out/graders; echo 'exit 0' > out/graders/check.sh; \
             echo 'exit 0' > out/check.sh; rm -rf out/sub; ln -s x/y out/sub; exit 0\n",
        ),
    ];
    for line in [
        "cd out/sub && sh ../../graders/check.sh",
        "cd out/sub && cmp -s answer.txt ../../expected.txt",
    ] {
        let f = Fixture::new(&plan("", line));
        write_files(&f, files);
        check(&f).code(2).stderr(predicate::str::contains(
            "after `cd out/sub`, a folder the trials write",
        ));
    }
    for no_mounts in box_modes(&current_test()) {
        for line in [
            "cd out/sub && sh ../../check.sh",
            "cd out/sub && sh ../../graders/check.sh",
        ] {
            let f = Fixture::new(&plan("    writes: [out]\n", line));
            write_files(&f, files);
            check(&f).code(0);
            let out = run_in(&f, no_mounts).get_output().clone();
            assert_eq!(out.status.code(), Some(1), "{line}: {}", both(&out));
        }
    }
    // `cd out` into the `writes` root itself: `out` cannot be replaced, so `..` is read.
    let f = Fixture::new(&plan("", "cd out && cmp -s answer.txt ../expected.txt"));
    write_files(
        &f,
        &[
            ("agent.sh", "exit 0\n"),
            ("out/.keep", ""),
            ("expected.txt", "42\n"),
        ],
    );
    let text = std::fs::read_to_string(f.plan()).unwrap();
    std::fs::write(
        f.plan(),
        text.replace("    run:", "    writes: [out]\n    run:"),
    )
    .unwrap();
    check(&f).code(0);
}

/// Review 65: a `..` built where no reading of the line sees it (`out/a/../../g` in one
/// word, a glob `.?/.?`, a command substitution, awk's string joins), after a trial made
/// `out/a` a link, led to a grader or an answer key of its own. In a task's `writes:`
/// folders no trial can make a link (Landlock grants no `MAKE_SYM` there), however the
/// check spells its path; in its `TMPDIR` it can.
#[test]
fn rev65_no_trial_makes_a_link_in_its_writes_folders() {
    for no_mounts in box_modes(&current_test()) {
        for line in [
            "sh out/a/../../graders/g",
            "cmp -s out/answer.txt out/a/../../expected.txt",
            "cd out && cmp -s answer.txt a/../../expected.txt",
        ] {
            let f = Fixture::new(&plan("    writes: [out]\n", line));
            write_files(
                &f,
                &[
                    ("graders/g", "exit 1\n"),
                    ("expected.txt", "42\n"),
                    ("out/a/.keep", ""),
                    (
                        "agent.sh",
                        "echo 41 > out/answer.txt; mkdir -p out/x/y out/graders\n\
                         echo 'exit 0' > out/graders/g; echo 41 > out/expected.txt\n\
                         rm -rf out/a; ln -s x/y out/a || echo NO-LINK >&2\n\
                         ln -s /tmp \"$TMPDIR/ok\" && echo TMP-LINK >&2\nexit 0\n",
                    ),
                ],
            );
            let out = run_in(&f, no_mounts).get_output().clone();
            let text = both(&out);
            assert_eq!(out.status.code(), Some(1), "{line}: {text}");
            assert!(text.contains("NO-LINK"), "{line}: {text}");
            assert!(text.contains("TMP-LINK"), "{line}: {text}");
            assert!(!f.path("out/a").is_symlink());
        }
    }
}

/// Review 64, 02b and 02c: `policy.sandbox.writable` holding a `writes` task's folder, or
/// lying in it outside its `writes`, let other trials write what every report said was
/// read-only. Refused at load.
#[test]
fn rev64_02_other_trials_folders_over_a_writes_task_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let task = root.path().join("pkg");
    std::fs::create_dir_all(task.join("work")).unwrap();
    std::fs::create_dir_all(task.join("tests")).unwrap();
    // Inside the task's own `writes` folder it would give that folder back the right to
    // make links (review 66, 06, 08): refused too.
    std::fs::create_dir_all(task.join("work/cache")).unwrap();
    std::fs::write(task.join("agent.sh"), "exit 0\n").unwrap();
    for (writable, how) in [
        ("[..]", "holds its folder"),
        ("[tests]", "lies in its folder"),
        ("[work/cache]", "lies in its folder"),
    ] {
        std::fs::write(
            task.join("plan.yaml"),
            format!(
                "{}policy: {{sandbox: {{writable: {writable}}}}}\n",
                plan("    writes: [work]\n", "true")
            ),
        )
        .unwrap();
        gate()
            .current_dir(&task)
            .args(["check", "plan.yaml"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("but other trials write `"))
            .stderr(predicate::str::contains(how))
            .stderr(predicate::str::contains(
                "`policy.sandbox.writable`; take it out",
            ))
            .stderr(predicate::str::contains("`writes:`"));
    }
}

/// Review 64, 09: the warning that names `writes:` is for a check that runs node, not for a
/// Python grader that has a JavaScript file beside it.
#[test]
fn rev64_09_the_node_warning_is_for_checks_that_run_node() {
    let py = Fixture::new(&plan("", "python3 -I graders/check.py"));
    write_files(
        &py,
        &[
            ("agent.sh", "exit 0\n"),
            ("graders/check.py", "raise SystemExit(0)\n"),
            ("graders/check.js", "require('fs');\n"),
        ],
    );
    check(&py).stderr(predicate::str::contains("runs node").not());
    let node = Fixture::new(&plan("", "node graders/check.js"));
    write_files(
        &node,
        &[
            ("agent.sh", "exit 0\n"),
            ("graders/package.json", "{}\n"),
            ("graders/check.js", "process.exit(0);\n"),
        ],
    );
    check(&node)
        .stderr(predicate::str::contains("runs node in"))
        .stderr(predicate::str::contains("`writes:`"));
}

/// Review 66, 01, 03, 04: a folder holding a link, made in the trial's `TMPDIR` (or its
/// result folder, or unpacked there by `tar`), renamed into a `writes` folder, brought the
/// link with it, and `out/a/b/../../../graders/g` led to the trial's own grader. Nothing
/// moves out of where a trial may make links (Landlock grants no `REFER` there): `mv`
/// copies, and the copy of a link is refused.
#[test]
fn rev66_a_folder_holding_a_link_cannot_be_moved_into_a_writes_folder() {
    for no_mounts in box_modes(&current_test()) {
        for from in ["$TMPDIR", "$(dirname \"$GATE_RESULT\")"] {
            let f = Fixture::new(&plan(
                "    writes: [out]\n",
                "sh out/a/b/../../../graders/g",
            ));
            let agent = format!(
                "mkdir -p out/x/y/z out/graders; echo 'exit 0' > out/graders/g\n\
                 S={from}/s; mkdir -p \"$S/a\"; ln -s \"$PWD/out/x/y/z\" \"$S/a/b\"\n\
                 rm -rf out/a; mv -T \"$S/a\" out/a 2>&1 || echo MOVE-REFUSED >&2\nexit 0\n"
            );
            write_files(
                &f,
                &[
                    ("graders/g", "exit 1\n"),
                    ("out/a/b/.keep", ""),
                    ("agent.sh", &agent),
                ],
            );
            let out = run_in(&f, no_mounts).get_output().clone();
            let text = both(&out);
            assert_eq!(out.status.code(), Some(1), "{from}: {text}");
            assert!(!f.path("out/a/b").is_symlink(), "{from}: {text}");
        }
    }
}

/// Review 67: three ways back to a link in a `writes` folder. 02 and 03, another task's
/// folder in it (or below it): that task's trials make links there (refused at load). 04,
/// gate's `TMPDIR` in it: a trial moves its own `TMPDIR`, and the right to make links with
/// it (no trial is run, exit 4). 05, the task's folder on `/dev/shm`, which every trial may
/// write: no link or move there either for a task with `writes:`.
#[test]
fn rev67_no_other_grant_brings_back_links_in_a_writes_folder() {
    for cwd in ["a/out", "a/out/sub"] {
        let f = Fixture::new(&format!(
            "version: 1\nsampling: {{single: {{n: 1, c: 0}}}}\ntasks:\n  - id: b\n    cwd: {cwd}\n    run: \"true\"\n  - id: a\n    cwd: a\n    run: \"true\"\n    writes: [out]\n"
        ));
        std::fs::create_dir_all(f.path(cwd)).unwrap();
        check(&f).code(2).stderr(predicate::str::contains(
            "task `a` names the folders its trials write",
        ));
    }

    let f = answer_key_task("    writes: [work]\n");
    std::fs::create_dir_all(f.path("work/tmp")).unwrap();
    f.command(&[])
        .env("TMPDIR", f.path("work/tmp"))
        .assert()
        .code(4)
        .stderr(predicate::str::contains("($TMPDIR) lies in"))
        .stderr(predicate::str::contains("no trial was run"));

    if !std::path::Path::new("/dev/shm").is_dir() {
        skip_or_fail(
            &current_test(),
            "devshm",
            "the part on /dev/shm: no /dev/shm here",
        );
        return;
    }
    for no_mounts in box_modes(&current_test()) {
        let dir = tempfile::tempdir_in("/dev/shm").unwrap();
        let text = plan("    writes: [out]\n", "sh out/a/b/../../../graders/g");
        std::fs::write(dir.path().join("plan.yaml"), text).unwrap();
        for (file, body) in [
            ("graders/g", "exit 1\n"),
            ("out/a/b/.keep", ""),
            (
                "agent.sh",
                "mkdir -p out/x/y/z out/graders; echo 'exit 0' > out/graders/g\nrm -rf out/a; mkdir out/a; ln -s ../x/y/z out/a/b || echo NO-LINK >&2\nexit 0\n",
            ),
        ] {
            let p = dir.path().join(file);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, body).unwrap();
        }
        let mut cmd = gate();
        cmd.current_dir(dir.path())
            .args(["run", "plan.yaml", "--no-step-summary"]);
        if no_mounts {
            cmd.env("GATE_SANDBOX_NO_MOUNTS", "1");
        }
        let out = cmd.output().unwrap();
        assert_ne!(out.status.code(), Some(0), "{}", both(&out));
        assert!(!dir.path().join("out/a/b").is_symlink(), "{}", both(&out));
    }
}

/// Round 4, session 22: a `check:` line that runs a runner whose definition no wall compares
/// (`pytest`, `make`, `tox`, `just`, `cargo`, `go`) in a folder the trials write was only
/// warned about, and a trial's `pytest.ini` (`addopts = --collect-only`) turned a wrong
/// answer into PASS. It is refused at load now, naming `writes:`; with the folders the
/// trials write listed, the `pytest.ini` cannot be written and the wrong answer FAILs, in
/// both box modes.
#[test]
fn a_pytest_ini_the_trial_writes_cannot_pass_a_wrong_answer() {
    let test = "a_pytest_ini_the_trial_writes_cannot_pass_a_wrong_answer";
    if !has("pytest") {
        skip_or_fail(test, "pytest", "no pytest here");
        return;
    }
    let yaml = |writes: &str| {
        format!(
            "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n{writes}    check: pytest -q -p no:cacheprovider tests/\n"
        )
    };
    let files = [
        (
            "tests/test_answer.py",
            "def test_answer():\n    assert open('out/answer.txt').read().strip() == 'right'\n",
        ),
        (
            "agent.sh",
            "echo wrong > out/answer.txt\nprintf '[pytest]\\naddopts = --collect-only\\n' > pytest.ini\n",
        ),
        ("out/.keep", ""),
    ];
    let refused = Fixture::new(&yaml(""));
    write_files(&refused, &files);
    assert_definition_refused(&refused, "runs `pytest` in `");
    refused.run(&[]).code(2);
    assert!(!refused.path("pytest.ini").exists(), "no trial ran");
    for no_mounts in box_modes(test) {
        let f = Fixture::new(&yaml("    writes: [out]\n"));
        write_files(&f, &files);
        check(&f)
            .code(0)
            .stderr(predicate::str::contains("warning").not());
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("agent  FAIL"));
        assert!(!f.path("pytest.ini").exists(), "no mounts: {no_mounts}");
    }
}

/// A node grader outside every folder the trials write, run as `node SCRIPT` in the task's
/// folder, reads its packages from beside itself, not from the current folder: no warning
/// (review 64's leftover). A launcher there (`npx`), an option before the script, or a
/// script inside the task's folder still gets one.
#[test]
fn a_node_grader_outside_the_task_folder_is_not_warned_about() {
    let yaml = |check: &str| {
        format!(
            "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n    cwd: work\n    run: sh agent.sh\n    check: {check}\n"
        )
    };
    let setup = |check: &str| {
        let f = Fixture::new(&yaml(check));
        write_files(
            &f,
            &[
                ("work/agent.sh", "echo right > answer.txt\n"),
                ("work/package.json", "{}\n"),
                ("work/node_modules/.keep", ""),
                ("work/lib/check.js", "process.exit(0);\n"),
                ("work/lib/package.json", "{}\n"),
                (
                    "graders/check.js",
                    "process.exit(require('fs').readFileSync('answer.txt', 'utf8').trim() === 'right' ? 0 : 1);\n",
                ),
                ("graders/package.json", "{}\n"),
            ],
        );
        f
    };
    let quiet = setup("node ../graders/check.js");
    check(&quiet)
        .code(0)
        .stderr(predicate::str::contains("runs node in").not());
    for line in ["node -r ./x ../graders/check.js", "node lib/check.js"] {
        let f = setup(line);
        let out = check(&f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("runs node in") || out.status.code() == Some(2),
            "`{line}`: {err}"
        );
    }
}

/// Review 67, 09: in a task with `writes:` a rename between two folders of the trial's
/// `TMPDIR` fails with `EXDEV` (no Landlock `REFER` where links may be made), and gate gave
/// no hint; the FAIL now says what happened and what to do.
#[test]
fn a_rename_refused_in_tmpdir_gets_a_hint() {
    let test = "a_rename_refused_in_tmpdir_gets_a_hint";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    for no_mounts in box_modes(test) {
        let f = Fixture::new(&plan("    writes: [work]\n", "test -s work/moved"));
        write_files(
            &f,
            &[
                (
                    "agent.sh",
                    "mkdir \"$TMPDIR/a\" \"$TMPDIR/b\"\necho x > \"$TMPDIR/a/f\"\npython3 -c 'import os, sys; os.rename(sys.argv[1] + \"/a/f\", sys.argv[1] + \"/b/f\")' \"$TMPDIR\" || exit 1\necho x > work/moved\n",
                ),
                ("work/.keep", ""),
            ],
        );
        run_in(&f, no_mounts)
            .code(1)
            .stdout(predicate::str::contains("Invalid cross-device link"))
            .stdout(predicate::str::contains(
                "hint       `Invalid cross-device link` (EXDEV)",
            ));
    }
}

/// Review 68 (helper-131, an attack on the runner refusal): a runner no wall compares, run in
/// a folder the trials write, got past the refusal by another name (`gmake`), behind `find
/// -exec` or `xargs -a FILE`, by pointing pytest at a folder the trials write from outside
/// it (`cd .. && pytest work/tests`: pytest reads its configuration above its arguments),
/// or by collecting a `writes` folder (`pytest -q` over `writes: [src]`: a trial's
/// `src/conftest.py` session hooks decide every test). Each was a wrong PASS in both box
/// modes; each is refused at load now, and the honest forms stay accepted.
#[test]
fn rev68_runners_by_other_names_and_other_ways_are_refused() {
    let setup = |extra: &str, check: &str| {
        let f = runner_task("    cwd: work\n", extra, check);
        write_files(
            &f,
            &[
                ("work/agent.sh", "echo 41 > out/answer.txt\n"),
                ("work/out/.keep", ""),
                ("work/src/.keep", ""),
                (
                    "work/Makefile",
                    "check:\n\tcmp -s out/answer.txt expected.txt\n",
                ),
                (
                    "work/tests/test_answer.py",
                    "def test_answer():\n    assert open('out/answer.txt').read().strip() == '42'\n",
                ),
                ("lists/paths.txt", "tests\n"),
            ],
        );
        f
    };
    // (Since review 81, `xargs pytest` is refused by the allow-list, whatever its input.)
    check(&setup("", "xargs -a ../lists/paths.txt pytest -q"))
        .code(2)
        .stderr(predicate::str::contains("has `xargs` running `pytest`"));
    for (extra, line, said) in [
        ("", "gmake -B check", "runs `make` in `"),
        (
            "",
            "find tests -maxdepth 0 -exec pytest -q {} +",
            "runs `pytest` in `",
        ),
        (
            "",
            "find . -maxdepth 0 -execdir make -B check \\;",
            "runs `make` through `find -execdir`",
        ),
        (
            "",
            "cd .. && pytest -q work/tests",
            "runs `pytest`, which reads its configuration",
        ),
        (
            "",
            "cd .. && python3 -I -m pytest -q work/tests",
            "runs `pytest`, which reads its configuration",
        ),
        (
            "    writes: [src, out]\n",
            "pytest -q",
            "runs `pytest`, which collects `",
        ),
        (
            "    writes: [src, out]\n",
            "pytest -q tests/ src/",
            "runs `pytest`, which reads its configuration from `",
        ),
    ] {
        let f = setup(extra, line);
        assert_definition_refused(&f, said);
    }
    for (extra, line) in [
        ("    writes: [src, out]\n", "pytest -q tests/"),
        ("    writes: [src, out]\n", "gmake -B check"),
        ("    writes: [src, out]\n", "cd .. && pytest -q work/tests"),
    ] {
        check(&setup(extra, line)).code(0);
    }
}

/// Review 69 (helper-132, an attack on review 68's fixes): more ways a runner read what a
/// trial writes without a refusal, each a wrong PASS in both box modes: `xargs` behind `find
/// -exec`; `cd -P app` / `cd -- app` (the option taken for the folder); `find -execdir`
/// (the runner runs in each found folder); pytest given a path missing at load (a trial
/// creates `out/test_agent.py`), a `-c` file or an `@file` of arguments in a `writes`
/// folder, a path through `PYTEST_ADDOPTS`, or a link beneath its tests into one; `make
/// check` without `-B` whose target lies in a `writes` folder (`out/verdict`); a `writes`
/// task whose folder lies on `/dev/shm`, which the box grants every trial whole. Each is
/// refused at load now; the honest forms (an option's value in a `writes` folder, `make
/// -B`, `pytest tests/`) stay accepted.
#[test]
fn rev69_more_ways_a_runner_reads_what_a_trial_writes_are_refused() {
    let setup = |extra: &str, check: &str| {
        let f = runner_task("", extra, check);
        write_files(
            &f,
            &[
                ("agent.sh", "echo 41 > out/answer.txt\n"),
                ("out/.keep", ""),
                ("app/Makefile", "test:\n\ttrue\n"),
                (
                    "Makefile",
                    "check: out/verdict\n\tgrep -qx ok out/verdict\nout/verdict:\n\tcmp -s out/answer.txt expected.txt && echo ok > $@\n",
                ),
                ("tests/test_a.py", "def test_a():\n    pass\n"),
            ],
        );
        f
    };
    let w_app = "    writes: [app]\n";
    let w_out = "    writes: [out]\n";
    for (extra, line, said) in [
        (
            "",
            "find tests -maxdepth 0 -exec xargs pytest -q {} +",
            "runs `pytest` in `",
        ),
        (
            "",
            "find . -maxdepth 0 -exec xargs make -B check {} +",
            "runs `make` in `",
        ),
        (w_app, "cd -P app && make -B test", "runs `make` in `"),
        (w_app, "cd -- app && make -B test", "runs `make` in `"),
        (
            w_app,
            "sh -c 'cd -P app && make -B test'",
            "runs `make` in `",
        ),
        (
            w_app,
            "find app -maxdepth 1 -name Makefile -execdir make -B test {} +",
            "runs `make` through `find -execdir`",
        ),
        (
            w_out,
            "pytest -q tests out/test_agent.py",
            "runs `pytest`, which reads",
        ),
        (
            w_out,
            "pytest -c out/pytest.ini tests",
            "runs `pytest`, which reads",
        ),
        (
            w_out,
            "pytest @out/args.txt tests",
            "runs `pytest`, which reads",
        ),
        (
            "    writes: [out]\n    env: {PYTEST_ADDOPTS: \"out\"}\n",
            "pytest -q tests",
            "runs `pytest`, which reads",
        ),
    ] {
        assert_definition_refused(&setup(extra, line), said);
    }
    // `cd -- app` before a Python `-m`: the same reading of `cd`.
    let f = setup(w_app, "cd -- app && python3 -m pytest -q tests");
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("a folder the trials write"));
    // cargo: its target folder in a `writes` folder (07), a manifest in one (16).
    let f = setup("    writes: [src, target]\n", "cargo test -q --offline");
    write_files(
        &f,
        &[("src/.keep", ""), ("target/.keep", ""), ("Cargo.toml", "")],
    );
    assert_definition_refused(&f, "runs `cargo`, which builds its tests into `");
    let f = setup(
        w_app,
        "cargo test -q --offline --manifest-path app/Cargo.toml",
    );
    write_files(&f, &[("app/Cargo.toml", "")]);
    assert_definition_refused(&f, "runs `cargo` in `");
    // A link beneath pytest's tests into a `writes` folder (the plan's own).
    let f = setup(w_out, "pytest -q tests/");
    std::os::unix::fs::symlink("../out", f.path("tests/agent")).unwrap();
    assert_definition_refused(&f, "runs `pytest`, which collects `");
    check(&f).stderr(predicate::str::contains(
        "/tests/agent` is a link into a folder the trials write",
    ));
    // make whose target lies in a `writes` folder needs `-B`.
    check(&setup(w_out, "make check"))
        .code(2)
        .stderr(predicate::str::contains("`make` without `-B`"));
    for line in [
        "make -B check",
        "pytest -q tests/",
        "pytest -q tests/ --junitxml out/junit.xml",
        "pytest -q tests/ -k out --basetemp out",
    ] {
        check(&setup(w_out, line)).code(0);
    }
    // A `writes` task on /dev/shm.
    if std::path::Path::new("/dev/shm").is_dir() {
        let dir = tempfile::tempdir_in("/dev/shm").unwrap();
        std::fs::create_dir(dir.path().join("out")).unwrap();
        std::fs::write(
            dir.path().join("plan.yaml"),
            plan(w_out, "cmp -s out/answer.txt expected.txt"),
        )
        .unwrap();
        gate()
            .current_dir(dir.path())
            .args(["check", "plan.yaml"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "other trials write `/dev/shm`, which holds its folder",
            ))
            .stderr(predicate::str::contains(
                "the box grants it to every trial; keep the task's folder out of it",
            ));
    } else {
        skip_or_fail(
            &current_test(),
            "devshm",
            "the part on /dev/shm: no /dev/shm here",
        );
    }
}

/// Review 70 (helper-133, an attack on review 69's fixes): more readings pytest, make,
/// cargo and Python made past the refusal, each a wrong PASS in both box modes: `cd
/// 2>/dev/null app` (the redirection ends the words gate reads as the `cd`); a cluster of
/// pytest's short options (`-qk answer`, `-qcout/pytest.ini`) or a valued option gate did
/// not list (`--verbosity 2`), whose value stood for the test folders; `PYTEST_ADDOPTS`
/// with quotes; `find . -exec pytest {} +`; `cargo --target-dir out/t`; `python3 -m
/// out.grade`; a plugin or `--pyargs` module in a `writes` folder (`-p out.plug`,
/// `PYTEST_PLUGINS`). Each is refused at load now, and the honest forms stay accepted.
#[test]
fn rev70_pytest_options_cd_redirections_and_modules_the_trials_write_are_refused() {
    let setup = |extra: &str, check: &str| {
        let f = runner_task("", extra, check);
        write_files(
            &f,
            &[
                ("agent.sh", "echo 41 > out/answer.txt\n"),
                ("out/.keep", ""),
                ("src/.keep", ""),
                ("app/Makefile", "test:\n\ttrue\n"),
                ("tests/test_a.py", "def test_a():\n    pass\n"),
            ],
        );
        f
    };
    let w_out = "    writes: [out]\n";
    for (extra, line, said) in [
        (
            "    writes: [app]\n",
            "cd 2>/dev/null app && make -B test",
            "runs `make` after a `cd` whose folder gate cannot tell",
        ),
        (
            "    writes: [app]\n",
            "cd >/dev/null app && make -B test",
            "runs `make` after a `cd` whose folder gate cannot tell",
        ),
        (
            w_out,
            "pytest -qk answer",
            "runs `pytest`, which collects `",
        ),
        (
            w_out,
            "pytest -q --verbosity 2",
            "runs `pytest`, which collects `",
        ),
        (
            w_out,
            "pytest -qcout/pytest.ini tests",
            "runs `pytest`, which reads",
        ),
        (
            "    writes: [out]\n    env: {PYTEST_ADDOPTS: \"'out'\"}\n",
            "pytest -q tests",
            "runs `pytest`, which reads",
        ),
        (
            w_out,
            "find . -name 'test_*.py' -exec pytest -q {} +",
            "runs `pytest`, which collects `",
        ),
        (
            w_out,
            "python3 -m pytest -q -p out.plug tests",
            "runs `pytest`, which imports Python modules from `",
        ),
        (
            "    writes: [out]\n    env: {PYTEST_PLUGINS: out.plug}\n",
            "python3 -m pytest -q tests",
            "runs `pytest`, which imports Python modules from `",
        ),
        (
            w_out,
            "python3 -m pytest -q --pyargs tests out.extra",
            "runs `pytest`, which imports Python modules from `",
        ),
        (
            "    writes: [src, out]\n",
            "cargo test -q --offline --target-dir out/t",
            "runs `cargo`, which builds its tests into `",
        ),
    ] {
        assert_definition_refused(&setup(extra, line), said);
    }
    let f = setup("    writes: [mods]\n", "python3 -m mods.grade");
    std::fs::create_dir(f.path("mods")).unwrap();
    assert_definition_refused(&f, "runs the module `mods.grade`");
    for line in [
        "python3 -I -m pytest -q tests",
        "pytest -q --debug out/debug.log tests",
        "pytest -qk answer tests",
        "pytest -q tests -k 'not slow'",
        "python3 -I -m pytest -q -p no:cacheprovider tests",
        "cd tests && pytest -q",
    ] {
        check(&setup(w_out, line)).code(0);
    }
}

/// A task whose trials write `out` (the agent writes a wrong answer there) and whose
/// `check:` is `check`, beside a pytest folder `tests`.
fn pytest_over_out(check: &str) -> Fixture {
    let f = runner_task("", "    writes: [out]\n", check);
    write_files(
        &f,
        &[
            ("agent.sh", "echo 41 > out/answer.txt\n"),
            ("out/.keep", ""),
            ("tests/test_a.py", "def test_a():\n    pass\n"),
        ],
    );
    f
}

/// A quoted value with a space (`-k 'not slow'`) ended the command gate read at that word
/// (the value was read as a shell line of its own in the middle of the command), so the
/// test folders after it were lost and pytest was taken to collect the task's whole
/// folder: refused, a new user's first `pytest -k 'not slow' tests` (session 24's note).
/// The value's own reading now comes after the command, which keeps every word.
#[test]
fn a_quoted_option_value_before_the_test_folders_keeps_them() {
    let setup = pytest_over_out;
    for line in [
        "pytest -q -k 'not slow' tests",
        "python3 -m pytest -q -k \"not slow\" -m 'fast or quick' tests",
        "sh -c 'pytest -q -k \"not slow\" tests'",
    ] {
        check(&setup(line)).code(0);
    }
    // What the value's words would run is still read, after the command.
    for (line, said) in [
        ("pytest -q -k 'not slow' out", "runs `pytest`, which reads"),
        ("pytest -q -k 'not slow'", "runs `pytest`, which collects `"),
        (
            "sh -c 'pytest -q -k \"not slow\"' tests",
            "runs `pytest`, which collects `",
        ),
    ] {
        assert_definition_refused(&setup(line), said);
    }
}

/// Review 78 (helper-141, on the change above): with every word of the command kept, a path
/// the shell makes when the check runs (`pytest -q "$(echo out)" tests`, `$(cat
/// graders/dirs)`, a glob `o[u]t`) was passed over as a missing word, and `tests` alone was
/// read as what pytest collects: the trial's `out/conftest.py` PASSed a wrong answer. (Before
/// it, the substitution had cut the command short and pytest was read as collecting the
/// whole folder: refused by accident.) Such a path now counts as any folder; a pytest node
/// id's brackets and a `-k` value made by the shell are no path.
#[test]
fn rev78_a_path_the_shell_makes_at_run_time_is_refused_for_pytest() {
    let setup = |check: &str| {
        let f = pytest_over_out(check);
        write_files(
            &f,
            &[("graders/dirs", "out\n"), ("graders/k.txt", "not slow\n")],
        );
        f
    };
    for line in [
        "pytest -q \"$(echo out)\" tests",
        "pytest -q $(echo out) tests",
        "pytest -q -k 'not slow' -c \"$(echo out/pytest.ini)\" tests",
        "python3 -m pytest -q -k 'not slow' $(echo out) tests",
        "pytest -q $(cat graders/dirs) tests",
        "pytest -q tests \"$(printf %s out)\"",
        "pytest -q o[u]t tests",
        "pytest -q --rootdir \"$(echo out)\" tests",
        "pytest -q tests `echo out`",
    ] {
        assert_definition_refused(&setup(line), "runs `pytest`, which is given `");
    }
    for line in [
        "pytest -q -k \"$(cat graders/k.txt)\" tests",
        "pytest -q 'tests/test_a.py::test_a[1-2]'",
    ] {
        check(&setup(line)).code(0);
    }
}

/// Review 78, 11 and 26 (wrong PASSes before session 25 too): a `cd` inside quoted data
/// gate reads as a line of its own (`echo 'x; cd ../tests'`), or inside a subshell, was read
/// as moving every command after it, so pytest was taken to run in `tests` while it ran in
/// `out` (or in the task's folder, which holds `out`), where the trial's `conftest.py`
/// decided the grade. A `cd` now holds only until its scope ends (`eval`'s text is no scope;
/// the allow-list refuses `eval` and a subshell's `cd` on a check line before this reading).
#[test]
fn rev78_a_cd_in_a_subshell_or_quoted_text_does_not_move_the_commands_after_it() {
    let setup = pytest_over_out;
    for (line, said) in [
        (
            "cd out; echo 'x; cd ../tests'; pytest -q",
            "runs `pytest` in `",
        ),
        (
            "cd out && printf '%s\\n' 'a && cd ../tests' && pytest -q",
            "runs `pytest` in `",
        ),
    ] {
        assert_definition_refused(&setup(line), said);
    }
    // A subshell's `cd` that the commands after it do not share is refused by the
    // allow-list before any reading of runners (as before).
    for line in ["(cd tests); pytest -q", "sh -c 'cd tests' && pytest -q"] {
        check(&setup(line))
            .code(2)
            .stderr(predicate::str::contains("has `cd` in a subshell"));
    }
    for line in ["(cd tests && pytest -q)", "sh -c 'cd tests && pytest -q'"] {
        check(&setup(line)).code(0);
    }
}

/// Review 71 (helper-134, a new user's hour with the runner refusal, and attacks): 40, `make
/// -B test` with `writes: [src]` whose (read-only) makefile's recipe runs a bare `pytest
/// -q`, which collected a trial's `src/conftest.py`; 47, `tox` with `writes: [src, .tox]`,
/// whose environments a trial planted a `.pth` in. Both were a wrong PASS in both box modes;
/// both are refused at load now, and a recipe that names its test folders stays accepted.
#[test]
fn rev71_a_make_recipe_over_a_writes_folder_and_tox_environments_are_refused() {
    let setup = |writes: &str, check: &str, files: &[(&str, &str)]| {
        let f = Fixture::new(&plan(&format!("    writes: [{writes}]\n"), check));
        write_files(&f, &[("agent.sh", "echo 1 > src/a\n"), ("src/.keep", "")]);
        write_files(&f, files);
        f
    };
    let tests = ("tests/test_a.py", "def test_a():\n    pass\n");
    check(&setup(
        "src",
        "make -B test",
        &[("Makefile", "test:\n\tpytest -q\n"), tests],
    ))
    .code(2)
    .stderr(predicate::str::contains(
        "runs `make`, whose recipe runs `pytest` over a folder the trials write",
    ));
    check(&setup(
        "src",
        "make -B test",
        &[("Makefile", "test:\n\tpytest -q tests/\n"), tests],
    ))
    .code(0);
    let f = setup(
        "src, .tox",
        "tox -e py",
        &[("tox.ini", "[tox]\n"), (".tox/.keep", "")],
    );
    check(&f).code(2).stderr(predicate::str::contains(
        "runs `tox`, which runs the tests from the environments it builds in `",
    ));
}

/// A one-task plan (`run: sh agent.sh`, two trials) whose `check:` is `check`, with `cwd`
/// and `extra` lines (`writes:`, `env:`) before it: the reviews' runner cases.
fn runner_task(cwd: &str, extra: &str, check: &str) -> Fixture {
    Fixture::new(&format!(
        "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n{cwd}    run: sh agent.sh\n{extra}    check: {}\n",
        serde_json::to_string(check).unwrap()
    ))
}

/// Review 71, 41-43: a Python environment whose site folder has a `.pth` naming a folder
/// the trials write (an editable install of the agent's package, `pip install -e .`) let a
/// trial's `src/sitecustomize.py` run inside every Python check, `-I` included: here it
/// exits 0 before the grader reads the wrong answer, a wrong PASS in both box modes. The
/// plan is refused at load, whether the check names Python or a program whose `#!` line
/// runs it (`pytest`, `#!/usr/bin/env python3`); a `.pth` naming a folder elsewhere, and
/// Python run with `-S`, are accepted, and the wrong answer FAILs.
#[test]
fn rev71_41_a_site_pth_naming_a_folder_the_trials_write_is_refused() {
    let test = "rev71_41_a_site_pth_naming_a_folder_the_trials_write_is_refused";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    let setup = |pth: &str, check: &str| {
        let f = Fixture::new("");
        let venv = f.path("venv");
        let made = std::process::Command::new("python3")
            .args(["-m", "venv", "--without-pip"])
            .arg(&venv)
            .status()
            .unwrap();
        assert!(made.success(), "python3 -m venv");
        let site = std::fs::read_dir(venv.join("lib"))
            .unwrap()
            .map(|e| e.unwrap().path().join("site-packages"))
            .find(|p| p.is_dir())
            .expect("the venv's site-packages");
        let pth = pth.replace("DIR", &f.dir.path().display().to_string());
        std::fs::write(site.join("__editable__.agentpkg-0.1.pth"), pth).unwrap();
        let yaml = format!(
            "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n    cwd: w\n    run: sh agent.sh\n    writes: [src]\n    check: {check}\n    env: {{PATH: \"{}/bin:/usr/bin:/bin\"}}\n",
            venv.display()
        );
        write_files(
            &f,
            &[
                ("plan.yaml", &yaml),
                (
                    "w/agent.sh",
                    "echo wrong > src/answer.txt\nprintf 'import os\\nos._exit(0)\\n' > src/sitecustomize.py\n",
                ),
                ("w/src/.keep", ""),
                (
                    "graders/check.py",
                    "import sys\nsys.exit(0 if open('src/answer.txt').read().strip() == 'right' else 1)\n",
                ),
            ],
        );
        let checker = venv.join("bin/checker");
        std::fs::write(
            &checker,
            format!(
                "#!/usr/bin/env python3\nexec(open({:?}).read())\n",
                f.path("graders/check.py").display().to_string()
            ),
        )
        .unwrap();
        std::fs::set_permissions(
            &checker,
            std::os::unix::fs::PermissionsExt::from_mode(0o755),
        )
        .unwrap();
        f
    };
    for check_line in ["python3 -I ../graders/check.py", "checker"] {
        let f = setup("# an editable install\nDIR/w/src\n", check_line);
        let out = crate::common::check(&f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{check_line}: not refused:\n{err}"
        );
        assert!(
            err.contains("task `agent`: `check:` runs Python `")
                && err.contains("__editable__.agentpkg-0.1.pth` adds `")
                && err.contains("/w/src` to `sys.path`, which lies in a folder the trials write")
                && err.contains("sitecustomize.py")
                && err.contains("pip install ."),
            "{check_line}:\n{err}"
        );
        f.run(&[]).code(2);
        assert!(!f.path("w/src/sitecustomize.py").exists(), "no trial ran");
    }
    // A path relative to the site folder that climbs into the task's folder is the same.
    let f = setup("../../../../w/src\n", "checker");
    crate::common::check(&f).code(2);
    // `uv run` (here a stand-in on the plan's `PATH`) runs the project's `.venv`, whose
    // `.pth` names `src`.
    let f = setup("", "uv run python -I ../graders/check.py");
    let project = f.path("w/.venv");
    let made = std::process::Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&project)
        .status()
        .unwrap();
    assert!(made.success(), "python3 -m venv");
    let site = std::fs::read_dir(project.join("lib"))
        .unwrap()
        .map(|e| e.unwrap().path().join("site-packages"))
        .find(|p| p.is_dir())
        .unwrap();
    std::fs::write(
        site.join("_agentpkg.pth"),
        format!("{}\n", f.path("w/src").display()),
    )
    .unwrap();
    let uv = f.path("venv/bin/uv");
    std::fs::write(
        &uv,
        "#!/bin/sh\nshift\nPATH=$PWD/.venv/bin:$PATH exec \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&uv, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    crate::common::check(&f)
        .code(2)
        .stderr(predicate::str::contains("w/.venv/bin/python`, whose `"));
    // A `.pth` naming a folder outside the task's, and Python told to skip its site folders.
    for (pth, check_line) in [
        (
            "DIR/elsewhere\nimport os\n",
            "python3 -I ../graders/check.py",
        ),
        ("DIR/w/src\n", "python3 -I -S ../graders/check.py"),
    ] {
        for no_mounts in box_modes(test) {
            let f = setup(pth, check_line);
            crate::common::check(&f)
                .code(0)
                .stderr(predicate::str::contains("warning").not());
            // Accepted at load; the trial's `src/sitecustomize.py` then refuses each check
            // before it runs (review 75: the look before each check, however Python starts).
            run_in(&f, no_mounts)
                .code(4)
                .stdout(predicate::str::contains(
                    "sitecustomize.py` appeared or changed during the run",
                ));
        }
    }
}

/// Review 71, 01 and 27: a refusal of a `check:` line pointed at the task's first line; it
/// points at the `check:` value, line and column, with the snippet under it, whichever
/// reading refused it (a runner where the trials write, Python's current folder on
/// `sys.path`, a line gate cannot follow).
#[test]
fn a_check_refusal_points_at_the_check_value() {
    for (check, said) in [
        ("pytest -q tests/", "runs `pytest` in `"),
        ("python3 -m grade", "runs `python3 -m grade` in `"),
        ("G=x; sh $G", "has "),
    ] {
        let f = Fixture::new(&format!(
            "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    timeout: 30s\n    check:   {check}\n"
        ));
        write_files(&f, &[("agent.sh", "true\n"), ("tests/test_a.py", "")]);
        let out = crate::common::check(&f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{check}:\n{err}");
        assert!(
            err.contains("plan.yaml:7:14: task `agent`: `check:` ") && err.contains(said),
            "{check}: wanted plan.yaml:7:14 and `{said}` in\n{err}"
        );
    }
}

/// Review 71, 25: a task whose `writes:` already lists the whole folder (`writes: [.]`) was
/// told to list the folders the trials write; it is told to narrow the list it has.
#[test]
fn a_refused_runner_under_writes_dot_is_told_to_narrow_the_list() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: agent\n    run: sh agent.sh\n    writes: [.]\n    check: pytest -q tests/\n",
    );
    write_files(&f, &[("agent.sh", "true\n"), ("tests/test_a.py", "")]);
    let out = crate::common::check(&f).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("narrow the task's `writes:` (`.`) to the folders the trials write")
            && !err.contains("list the folders the trials write in the task's `writes:`"),
        "{err}"
    );
}

/// A task folder `w` (the trials write `w/src`; the agent writes a wrong answer and a
/// `src/sitecustomize.py` that exits 0), a grader outside it that FAILs the wrong answer,
/// and a virtual environment `venv` made by `python` outside the task's folder; `check` and
/// the plan's `env:` (`VENV` and `DIR` stand for the environment's and the fixture's folder).
/// The environment's `site-packages` folder is returned with the fixture.
fn site_fixture(python: &str, check: &str, env: &str) -> (Fixture, std::path::PathBuf) {
    let f = Fixture::new("");
    let venv = f.path("venv");
    let made = std::process::Command::new(python)
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success(), "{python} -m venv");
    let site = std::fs::read_dir(venv.join("lib"))
        .unwrap()
        .map(|e| e.unwrap().path().join("site-packages"))
        .find(|p| p.is_dir())
        .expect("the venv's site-packages");
    let dir = f.dir.path().display().to_string();
    let fill = |s: &str| {
        s.replace("VENV", &venv.display().to_string())
            .replace("DIR", &dir)
    };
    write_files(
        &f,
        &[
            (
                "plan.yaml",
                &fill(&format!(
                    "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n    cwd: w\n    run: sh agent.sh\n    writes: [src]\n    check: {check}\n    env: {{{env}}}\n"
                )),
            ),
            (
                "w/agent.sh",
                "echo wrong > src/answer.txt\nprintf 'import os\\nos._exit(0)\\n' > src/sitecustomize.py\n",
            ),
            ("w/src/.keep", ""),
            (
                "graders/check.py",
                "import sys\nsys.exit(0 if open('src/answer.txt').read().strip() == 'right' else 1)\n",
            ),
        ],
    );
    (f, site)
}

/// Write `text` to `p` (its folders made) as a program.
fn executable(p: &std::path::Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
    std::fs::set_permissions(p, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
}

/// Review 72 (helper-135's attacks on the check above; each a wrong PASS in both box modes,
/// or, 09, a trial's program run at load): the Python a check starts is found however the
/// line starts it, and its site folders read however they are spelled.
/// - 01: a venv of Debian's `/usr/bin/python3`, whose `getsitepackages` names the venv's
///   `site-packages` only when `sys.prefix` is the venv's;
/// - 02: Python behind a prefix gate does not list (`setsid`);
/// - 03: pip's `#!/bin/sh` trampoline for a long path;
/// - 06, 19: a makefile's recipe and an npm script;
/// - 07: a `.pth` with a byte-order mark and `\r` line ends;
/// - 08: a `.pth` that is a link into the folder the trials write;
/// - 12: a Python gate cannot ask is refused, not passed over;
/// - 21: `PATH` set on the line;
/// - 09, 10: a project runner in a folder the trials write, where a trial could make the
///   project's `.venv` (and gate would have run it at load).
///
/// And 17, an over-refusal: a user site folder under `-I`, which Python leaves out.
#[test]
fn rev72_every_python_a_check_starts_is_found_and_read() {
    let test = "rev72_every_python_a_check_starts_is_found_and_read";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    let path = "PATH: \"VENV/bin:/usr/bin:/bin\"";
    let refused = |f: &Fixture, said: &str| {
        let out = crate::common::check(f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "not refused:\n{err}");
        assert!(
            err.contains("task `agent`: `check:` ") && err.contains(said),
            "wanted `{said}` in\n{err}"
        );
    };
    let editable = |site: &std::path::Path, f: &Fixture| {
        std::fs::write(
            site.join("__editable__.agentpkg-0.1.pth"),
            format!("{}\n", f.path("w/src").display()),
        )
        .unwrap()
    };
    // 01: Debian's Python, where there is one.
    if std::path::Path::new("/usr/bin/python3").is_file() {
        let (f, site) = site_fixture("/usr/bin/python3", "python3 -I ../graders/check.py", path);
        editable(&site, &f);
        refused(&f, "to `sys.path`, which lies in a folder the trials write");
    } else {
        skip_or_fail(
            test,
            "system-python3",
            "the parts on the system's Python (01, 17): no /usr/bin/python3 here",
        );
    }
    // 02, 21: a prefix gate does not list; PATH set on the line.
    for (check, env) in [
        ("setsid python3 -I ../graders/check.py", path),
        (
            "PATH=VENV/bin:$PATH python3 -I ../graders/check.py",
            "PATH: \"/usr/bin:/bin\"",
        ),
        (
            "export PATH=VENV/bin:$PATH; python3 -I ../graders/check.py",
            "PATH: \"/usr/bin:/bin\"",
        ),
    ] {
        let (f, site) = site_fixture("python3", check, env);
        editable(&site, &f);
        refused(&f, "to `sys.path`, which lies in a folder the trials write");
    }
    // 03: pip's trampoline.
    let (f, site) = site_fixture("python3", "grade-tool", path);
    editable(&site, &f);
    executable(
        &f.path("venv/bin/grade-tool"),
        &format!(
            "#!/bin/sh\n'''exec' \"{}\" \"$0\" \"$@\"\n' '''\nexec(open({:?}).read())\n",
            f.path("venv/bin/python3").display(),
            f.path("graders/check.py").display().to_string()
        ),
    );
    refused(&f, "to `sys.path`, which lies in a folder the trials write");
    // 06, 19: a makefile's recipe, an npm script.
    let (f, site) = site_fixture("python3", "make -B check", path);
    editable(&site, &f);
    write_files(
        &f,
        &[("w/Makefile", "check:\n\t@python3 -I ../graders/check.py\n")],
    );
    refused(&f, "to `sys.path`, which lies in a folder the trials write");
    let (f, site) = site_fixture("python3", "npm test", path);
    editable(&site, &f);
    write_files(
        &f,
        &[(
            "w/package.json",
            "{\"scripts\": {\"test\": \"python3 -I ../graders/check.py\"}}\n",
        )],
    );
    refused(&f, "to `sys.path`, which lies in a folder the trials write");
    // 07: a byte-order mark and `\r` line ends; 08: a link into `src`.
    let (f, site) = site_fixture("python3", "python3 -I ../graders/check.py", path);
    std::fs::write(
        site.join("a.pth"),
        format!("\u{feff}# x\r{}\r", f.path("w/src").display()),
    )
    .unwrap();
    refused(&f, "to `sys.path`, which lies in a folder the trials write");
    let (f, site) = site_fixture("python3", "python3 -I ../graders/check.py", path);
    std::fs::write(f.path("w/src/agent.pth"), "# nothing yet\n").unwrap();
    std::os::unix::fs::symlink(f.path("w/src/agent.pth"), site.join("agent.pth")).unwrap();
    refused(&f, "agent.pth` is a link to `");
    // 12: a Python that does not answer gate's question.
    let (f, _) = site_fixture("python3", "python3 -I ../graders/check.py", path);
    std::fs::remove_file(f.path("venv/bin/python3")).unwrap();
    executable(&f.path("venv/bin/python3"), "#!/bin/sh\nexit 1\n");
    refused(
        &f,
        "whose site folders gate could not read (it ended with exit status: 1)",
    );
    // 09, 10: `uv run` (a stand-in the plan names) in the folder the trials write.
    let (f, _) = site_fixture(
        "python3",
        "cd src && ../../uv run python3 -I ../../graders/check.py",
        path,
    );
    executable(&f.path("uv"), "#!/bin/sh\nshift\nexec \"$@\"\n");
    refused(&f, "runs `uv` in `");
    // 17: a user site `.pth` naming `src`, under `-I` (left out, accepted) and without; the
    // system's Python (a venv leaves the user site out).
    let system = ["/usr/bin/python3", "/bin/python3"]
        .into_iter()
        .find(|p| std::path::Path::new(p).is_file());
    for (check, code) in [
        ("python3 -I ../graders/check.py", 0),
        ("python3 ../graders/check.py", 2),
    ] {
        let Some(system) = system else { break };
        let env = "PATH: \"/usr/bin:/bin\", PYTHONUSERBASE: \"DIR/userbase\"";
        let (f, _) = site_fixture("python3", check, env);
        let user = std::process::Command::new(system)
            .args(["-c", "import site; print(site.getusersitepackages())"])
            .env("PYTHONUSERBASE", f.path("userbase"))
            .output()
            .unwrap();
        let user = std::path::PathBuf::from(String::from_utf8(user.stdout).unwrap().trim());
        std::fs::create_dir_all(&user).unwrap();
        std::fs::write(
            user.join("old.pth"),
            format!("{}\n", f.path("w/src").display()),
        )
        .unwrap();
        crate::common::check(&f).code(code);
        if code == 0 {
            // The trial's `src/sitecustomize.py` refuses each check (review 75); the one the
            // last run's trial left would refuse the next run at its start (review 76, 09).
            for no_mounts in box_modes(test) {
                let _ = std::fs::remove_file(f.path("w/src/sitecustomize.py"));
                run_in(&f, no_mounts)
                    .code(4)
                    .stdout(predicate::str::contains(
                        "sitecustomize.py` appeared or changed during the run",
                    ));
            }
        }
    }
}

/// Review 71, 45: two tasks sharing a folder with different `writes:` were told to "name the
/// folder in the task's `writes:`", naming no task; the refusal names the other task and the
/// way out (the same `writes:`, or a `cwd` each), and following it is accepted.
#[test]
fn two_tasks_sharing_a_folder_are_told_which_and_how() {
    let plan = |a: &str, b: &str| {
        format!(
            "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: a\n    run: \"true\"\n{a}    check: \"true\"\n  - id: b\n    run: \"true\"\n{b}    check: \"true\"\n"
        )
    };
    let f = Fixture::new(&plan("    writes: [src]\n", "    writes: [out]\n"));
    write_files(&f, &[("src/.keep", ""), ("out/.keep", "")]);
    check(&f).code(2).stderr(predicate::str::contains(
        "task `b` lists it in its `writes:`; tasks that share a folder list the same `writes:`, or give each task its own `cwd`",
    ));
    let f = Fixture::new(&plan("", "    writes: [out]\n"));
    write_files(&f, &[("out/.keep", "")]);
    check(&f).code(2).stderr(predicate::str::contains(
        "task `a` writes all of it (it has no `writes:`); give task `a` the same `writes:`",
    ));
    let f = Fixture::new(&plan(
        "    writes: [src, out]\n",
        "    writes: [out, src]\n",
    ));
    write_files(&f, &[("src/.keep", ""), ("out/.keep", "")]);
    check(&f).code(0);
}

/// Review 73 (helper-136's attacks on the check above, each a wrong PASS in both box modes;
/// 06 also ran a trial's module at load, as gate's user):
/// - 01: `pytest` through a pyenv shim, whose program pyenv chooses by the check's folder;
/// - 02: make's `-C`, a recipe that is a make variable (`$(PY)`), `$(MAKE) -C sub`,
///   `.RECIPEPREFIX`, a recipe on the rule line (`check: ; …`);
/// - 03: `npm test -w sub`, and a script that runs `npm --prefix sub test`;
/// - 04: `uv run` in an environment `VIRTUAL_ENV` or `UV_PROJECT_ENVIRONMENT` names, or
///   that of `--project`;
/// - 06: a `python3._pth` beside the interpreter naming the folder the trials write.
#[test]
fn rev73_pythons_behind_shims_make_npm_uv_and_pth_files_are_read() {
    let test = "rev73_pythons_behind_shims_make_npm_uv_and_pth_files_are_read";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    let path = "PATH: \"VENV/bin:/usr/bin:/bin\"";
    let refused = |f: &Fixture, said: &str| {
        let out = crate::common::check(f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "not refused:\n{err}");
        assert!(
            err.contains("task `agent`: `check:` ") && err.contains(said),
            "wanted `{said}` in\n{err}"
        );
    };
    let adds = "to `sys.path`, which lies in a folder the trials write";
    let editable = |site: &std::path::Path, f: &Fixture| {
        std::fs::write(
            site.join("__editable__.agentpkg-0.1.pth"),
            format!("{}\n", f.path("w/src").display()),
        )
        .unwrap()
    };
    // 02.
    for (check, makefiles) in [
        (
            "make -B -C sub check",
            vec![(
                "w/sub/Makefile",
                "check:\n\tcd .. && python3 -I ../graders/check.py\n",
            )],
        ),
        (
            "make -B check",
            vec![(
                "w/Makefile",
                "PY ?= VENV/bin/python3\ncheck:\n\t$(PY) -I ../graders/check.py\n",
            )],
        ),
        (
            "make -B check",
            vec![
                ("w/Makefile", "check:\n\t$(MAKE) -B -C sub check\n"),
                (
                    "w/sub/Makefile",
                    "check:\n\tcd .. && python3 -I ../graders/check.py\n",
                ),
            ],
        ),
        (
            "make -B check",
            vec![(
                "w/Makefile",
                ".RECIPEPREFIX = >\ncheck:\n> python3 -I ../graders/check.py\n",
            )],
        ),
        (
            "make -B check",
            vec![("w/Makefile", "check: ; python3 -I ../graders/check.py\n")],
        ),
    ] {
        let (f, site) = site_fixture("python3", check, path);
        editable(&site, &f);
        let venv = f.path("venv").display().to_string();
        for (file, text) in makefiles {
            write_files(&f, &[(file, &text.replace("VENV", &venv))]);
        }
        refused(&f, adds);
    }
    // 03.
    for (check, files) in [
        (
            "npm test -w sub",
            vec![
                ("w/package.json", "{\"workspaces\": [\"sub\"]}\n"),
                (
                    "w/sub/package.json",
                    "{\"name\": \"sub\", \"scripts\": {\"test\": \"cd .. && python3 -I ../graders/check.py\"}}\n",
                ),
            ],
        ),
        (
            "npm test",
            vec![
                (
                    "w/package.json",
                    "{\"scripts\": {\"test\": \"npm --prefix sub test\"}}\n",
                ),
                (
                    "w/sub/package.json",
                    "{\"scripts\": {\"test\": \"cd .. && python3 -I ../graders/check.py\"}}\n",
                ),
            ],
        ),
    ] {
        let (f, site) = site_fixture("python3", check, path);
        editable(&site, &f);
        write_files(&f, &files);
        refused(&f, adds);
    }
    // 04: `uv` (a stand-in the plan names by path) with the environment named elsewhere.
    for (check, env) in [
        (
            "../uv run --active python3 -I ../graders/check.py",
            "PATH: \"/usr/bin:/bin\", VIRTUAL_ENV: \"VENV\"",
        ),
        (
            "../uv run python3 -I ../graders/check.py",
            "PATH: \"/usr/bin:/bin\", UV_PROJECT_ENVIRONMENT: \"VENV\"",
        ),
        (
            "../uv run --project DIR/proj python3 -I ../graders/check.py",
            "PATH: \"/usr/bin:/bin\"",
        ),
    ] {
        let (f, site) = site_fixture("python3", check, env);
        editable(&site, &f);
        executable(&f.path("uv"), "#!/bin/sh\nexit 1\n");
        std::fs::create_dir_all(f.path("proj")).unwrap();
        std::os::unix::fs::symlink(f.path("venv"), f.path("proj/.venv")).unwrap();
        refused(&f, adds);
    }
    // 01: a pyenv shim (a stand-in pyenv that answers `which` with the venv's program).
    let (f, site) = site_fixture(
        "python3",
        "pytest -q ../graders/check.py",
        "PATH: \"DIR/shims:/usr/bin:/bin\"",
    );
    editable(&site, &f);
    let venv = f.path("venv");
    executable(
        &f.path("libexec/pyenv"),
        &format!(
            "#!/bin/sh\n[ \"$1\" = which ] && echo {}/bin/$2\n",
            venv.display()
        ),
    );
    std::fs::create_dir_all(f.path("shims")).unwrap();
    executable(
        &f.path("shims/pytest"),
        &format!(
            "#!/usr/bin/env bash\nset -e\nprogram=\"${{0##*/}}\"\nexec \"{}\" exec \"$program\" \"$@\"\n",
            f.path("libexec/pyenv").display()
        ),
    );
    executable(
        &venv.join("bin/pytest"),
        &format!(
            "#!{}/bin/python3\nimport sys\nsys.exit(1)\n",
            venv.display()
        ),
    );
    refused(&f, adds);
    // 06: a `._pth` file beside an interpreter (a copy of the venv's, outside the task).
    let (f, _) = site_fixture("python3", "DIR/opt/python3 -I ../graders/check.py", path);
    std::fs::create_dir_all(f.path("opt")).unwrap();
    std::os::unix::fs::symlink(
        std::fs::canonicalize(f.path("venv/bin/python3")).unwrap(),
        f.path("opt/python3"),
    )
    .unwrap();
    std::fs::write(
        f.path("opt/python3._pth"),
        format!("{}\nimport site\n", f.path("w/src").display()),
    )
    .unwrap();
    refused(&f, "python3._pth` puts `");
}

/// Review 74 (helper-137, a short attack on review 73's readers; each a wrong PASS in both
/// box modes): a make variable from the check's `env:` (`$(PY)`), a target-specific variable
/// (`check: PY := …`), a `define` block, a recipe continued with `\`; `npm test -ws` and
/// `--workspaces` (every workspace package), and npm's `package.json` in the folder above.
#[test]
fn rev74_make_variables_defines_continuations_and_npm_workspaces_are_read() {
    let test = "rev74_make_variables_defines_continuations_and_npm_workspaces_are_read";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    let path = "PATH: \"VENV/bin:/usr/bin:/bin\"";
    let adds = "to `sys.path`, which lies in a folder the trials write";
    for (check, env, files) in [
        (
            "make -B check",
            "PATH: \"VENV/bin:/usr/bin:/bin\", PY: python3",
            vec![("w/Makefile", "check:\n\t$(PY) -I ../graders/check.py\n")],
        ),
        (
            "make -B check",
            path,
            vec![(
                "w/Makefile",
                "check: PY := python3\ncheck:\n\t$(PY) -I ../graders/check.py\n",
            )],
        ),
        (
            "make -B check",
            path,
            vec![(
                "w/Makefile",
                "define RUN\npython3 -I ../graders/check.py\nendef\ncheck:\n\t$(RUN)\n",
            )],
        ),
        (
            "make -B check",
            path,
            vec![(
                "w/Makefile",
                "check:\n\tenv LC_ALL=C \\\n    python3 -I ../graders/check.py\n",
            )],
        ),
        (
            "npm test -ws",
            path,
            vec![
                ("w/package.json", "{\"workspaces\": [\"pkgs/a\"]}\n"),
                (
                    "w/pkgs/a/package.json",
                    "{\"name\": \"a\", \"scripts\": {\"test\": \"cd ../.. && python3 -I ../graders/check.py\"}}\n",
                ),
            ],
        ),
        (
            "npm run test --workspaces",
            path,
            vec![
                ("w/package.json", "{\"workspaces\": [\"pkgs/a\"]}\n"),
                (
                    "w/pkgs/a/package.json",
                    "{\"name\": \"a\", \"scripts\": {\"test\": \"cd ../.. && python3 -I ../graders/check.py\"}}\n",
                ),
            ],
        ),
        (
            "cd sub && npm test",
            path,
            vec![
                ("w/sub/.keep", ""),
                (
                    "w/package.json",
                    "{\"scripts\": {\"test\": \"python3 -I ../graders/check.py\"}}\n",
                ),
            ],
        ),
    ] {
        let (f, site) = site_fixture("python3", check, env);
        std::fs::write(
            site.join("__editable__.agentpkg-0.1.pth"),
            format!("{}\n", f.path("w/src").display()),
        )
        .unwrap();
        write_files(&f, &files);
        let out = crate::common::check(&f).get_output().clone();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{check}: not refused:\n{err}");
        assert!(err.contains(adds), "{check}:\n{err}");
    }
}

/// Review 75, 01: a Python a grader file starts, not the `check:` line (`sh
/// graders/grade.sh`, the script running `python3 check.py`), is asked for its site folders
/// too: a shell script's lines are read as lines of the check, and a word of any grader file
/// that names Python (`system("python3 …")` in an awk grader) is read as that program. Before,
/// the `.pth` of an editable install naming `src` went unread and a trial's
/// `src/sitecustomize.py` turned a wrong answer into PASS.
#[test]
fn rev75_a_python_a_grader_file_starts_is_read() {
    let test = "rev75_a_python_a_grader_file_starts_is_read";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    let path = "PATH: \"VENV/bin:/usr/bin:/bin\"";
    // A Python grader started by the Python the tests run with, by its path: its own
    // folders reach nothing the trials write; the `python3` it starts is the venv's.
    let python = std::env::var_os("PATH")
        .and_then(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join("python3"))
                .find(|p| p.is_file())
        })
        .expect("python3 on PATH");
    let outer = format!("{} -I ../graders/run.py", python.display());
    let cases: [(&str, &str, &str); 3] = [
        (
            "sh ../graders/grade.sh",
            "graders/grade.sh",
            "#!/bin/sh\nset -e\ncd \"$(dirname \"$0\")/../w\"\npython3 -I ../graders/check.py\n",
        ),
        (
            "../graders/grade.sh",
            "graders/grade.sh",
            "#!/usr/bin/env bash\nif [ -f src/answer.txt ]; then\n  exec python3 ../graders/check.py\nfi\nexit 1\n",
        ),
        (
            &outer,
            "graders/run.py",
            "import subprocess, sys\nsys.exit(subprocess.run([\"python3\", \"../graders/check.py\"]).returncode)\n",
        ),
    ];
    for editable in [true, false] {
        for (check, name, text) in cases {
            let (f, site) = site_fixture("python3", check, path);
            if editable {
                std::fs::write(
                    site.join("__editable__.agentpkg-0.1.pth"),
                    format!("{}\n", f.path("w/src").display()),
                )
                .unwrap();
            }
            executable(&f.path(name), text);
            let out = crate::common::check(&f).get_output().clone();
            let err = String::from_utf8_lossy(&out.stderr);
            if editable {
                assert_eq!(out.status.code(), Some(2), "{check}: not refused:\n{err}");
                assert!(
                    err.contains(&format!(
                        "(started in the grader file `{}`)",
                        f.path(name).display()
                    )) && err.contains("to `sys.path`, which lies in a folder the trials write"),
                    "{check}:\n{err}"
                );
            } else {
                // The same graders with a venv that reaches no folder the trials write.
                assert_eq!(out.status.code(), Some(0), "{check}: refused:\n{err}");
            }
        }
    }
}

/// Review 75 (17 of 45 attacks: a makefile's `$(shell …)`, `SHELL := python3`, `$(file …)`,
/// `$(subst …)`, `!=`, `$<`, `py=python3; $$py`, an `.npmrc`'s `script-shell` or
/// `workspace`, `node_modules/.bin/grade` starting Python, `activate` after a `cd`, `$PWD`
/// or `~` in a `PATH=`): Python started in a way the load-time reading does not follow. So
/// before each check gate looks in the folders the trials write for what Python or pytest
/// runs by itself: a `sitecustomize`/`usercustomize` or a `pytest11` entry point that is new
/// or changed since the run started refuses the check (exit 4, no verdict), however the
/// check starts its Python, or whether it does. What was there at the start (a `.venv` with
/// pytest plugins) is not the trial's and stays.
#[test]
fn rev75_a_sitecustomize_or_pytest_plugin_a_trial_leaves_refuses_the_check() {
    let plan = |agent: &str| {
        format!(
            "version: 1\nsampling: {{single: {{n: 2, c: 0}}}}\ntasks:\n  - id: agent\n    cwd: w\n    run: sh -c '{agent}'\n    writes: [src]\n    check: grep -q right src/answer.txt\n"
        )
    };
    let right = "echo right > src/answer.txt";
    let planted = [
        (
            "src/sitecustomize.py",
            format!("{right}; printf \"import os\\nos._exit(0)\\n\" > src/sitecustomize.py"),
        ),
        (
            "src/deep/usercustomize.cpython-311-x86_64-linux-gnu.so",
            format!(
                "{right}; mkdir -p src/deep; true > src/deep/usercustomize.cpython-311-x86_64-linux-gnu.so"
            ),
        ),
        (
            "src/nt.py",
            format!("{right}; printf \"import os\\nos._exit(0)\\n\" > src/nt.py"),
        ),
        (
            "src/x-1.0.dist-info/entry_points.txt",
            format!(
                "{right}; mkdir -p src/x-1.0.dist-info; printf \"[pytest11]\\nx = x\\n\" > src/x-1.0.dist-info/entry_points.txt"
            ),
        ),
    ];
    for (file, agent) in &planted {
        let f = Fixture::new(&plan(agent));
        write_files(&f, &[("w/src/.keep", "")]);
        let out = f.run(&[]).get_output().clone();
        let text = both(&out);
        assert_eq!(out.status.code(), Some(4), "{file}:\n{text}");
        assert!(
            text.contains(&format!(
                "{}` appeared or changed during the run",
                f.path("w").join(file).display()
            )) && text.contains("no verdict is published"),
            "{file}:\n{text}"
        );
    }
    // Not refused: an entry point that loads nothing by itself, a name that only looks alike,
    // a sourceless copy in `__pycache__` (never imported), and a venv with a pytest plugin
    // that was there before the first trial.
    let f = Fixture::new(&plan(&format!(
        "{right}; mkdir -p src/a.egg-info src/__pycache__; printf \"[console_scripts]\\na = a:main\\n\" > src/a.egg-info/entry_points.txt; true > src/sitecustomizer.py; true > src/__pycache__/sitecustomize.cpython-311.pyc"
    )));
    write_files(
        &f,
        &[
            ("w/src/.keep", ""),
            (
                "w/src/.venv/lib/python3.11/site-packages/pytest_cov-6.0.dist-info/entry_points.txt",
                "[pytest11]\npytest_cov = pytest_cov.plugin\n",
            ),
            (
                "w/src/.venv/lib/python3.11/site-packages/sitecustomize.py",
                "",
            ),
        ],
    );
    let out = f.run(&[]).get_output().clone();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    // Review 76, 09: one there before the first trial, outside any `site-packages` (where a
    // refused trial of an earlier run left it), refuses the run: gate cannot tell it from the
    // plan author's.
    let f = Fixture::new(&plan(right));
    write_files(
        &f,
        &[("w/src/sitecustomize.py", "import os\nos._exit(0)\n")],
    );
    let out = f.run(&[]).get_output().clone();
    let text = both(&out);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(
        text.contains(
            "sitecustomize.py` lies in a folder the trials write, outside any `site-packages`"
        ) && text.contains("no trial was run"),
        "{text}"
    );
}

/// Review 76, 07: without a PID namespace (the fallback box), a process an agent left behind
/// (`setsid`) outlived its trial and wrote, after the looks before the check, what the check
/// would read, then took it away. Every such orphan dies when a check takes its turn.
#[test]
fn rev76_07_a_process_an_agent_left_behind_dies_before_the_check_looks() {
    let test = "rev76_07_a_process_an_agent_left_behind_dies_before_the_check_looks";
    if gate::runner::sandbox::landlock_abi() < 1 {
        skip_or_fail(test, "landlock", "this kernel has no Landlock");
        return;
    }
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: agent\n    cwd: w\n    run: sh agent.sh\n    writes: [src]\n    check: sh ../graders/check.sh\n",
    );
    write_files(
        &f,
        &[
            (
                "w/agent.sh",
                "setsid sh -c 'while :; do touch src/late; sleep 0.05; done' </dev/null >/dev/null 2>&1 &\nsleep 0.2\n",
            ),
            ("w/src/.keep", ""),
            (
                "graders/check.sh",
                "rm -f src/late\nsleep 0.5\ntest ! -e src/late\n",
            ),
        ],
    );
    let out = run_in(&f, true).get_output().clone();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
}

/// Review 75, 40: a venv whose `pyvenv.cfg` names a `home` in a folder the trials write takes
/// its standard library from there (`src/lib/python3.11/encodings`): gate's own question at
/// load ran the trial's code outside the box, which then answered with a clean `sys.path`.
/// Where the library is looked for is read from the files, and such a Python is refused
/// before anything of it runs.
#[test]
fn rev75_40_a_python_whose_library_the_trials_could_place_is_refused_before_it_runs() {
    let test = "rev75_40_a_python_whose_library_the_trials_could_place_is_refused_before_it_runs";
    if !has("python3") {
        skip_or_fail(test, "python3", "no python3 here");
        return;
    }
    let (f, _site) = site_fixture(
        "python3",
        "python3 ../graders/check.py",
        "PATH: \"VENV/bin:/usr/bin:/bin\"",
    );
    let cfg = f.path("venv/pyvenv.cfg");
    let text = std::fs::read_to_string(&cfg).unwrap();
    let home = f.path("w/src/bin");
    let text: String = text
        .lines()
        .map(|l| {
            if l.starts_with("home") {
                format!("home = {}\n", home.display())
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    std::fs::write(&cfg, text).unwrap();
    let marker = f.path("ran-at-load");
    write_files(
        &f,
        &[
            ("w/src/bin/.keep", ""),
            ("w/src/lib/python3.11/os.py", ""),
            (
                "w/src/lib/python3.11/encodings/__init__.py",
                &format!("open({:?}, 'w').write('x')\n", marker.display().to_string()),
            ),
        ],
    );
    let out = crate::common::check(&f).get_output().clone();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "not refused:\n{err}");
    assert!(
        err.contains("whose standard library is looked for from the `home` of")
            && err.contains(&home.display().to_string()),
        "{err}"
    );
    assert!(!marker.exists(), "a trial's module ran at load");
}

/// Review 81 (helper-144, 51 attacks on the reading of check lines): a variable that
/// chooses what a test runner reads, set on the `check:` line itself (`PYTEST_PLUGINS=out.plug
/// python3 -m pytest`, `export`, `env`, `set -a`, a makefile recipe's own) or in gate's
/// environment, was not read as the plan's `env:` is: a trial's `out/plug.py` ran as a
/// pytest plugin and passed every test, a wrong PASS. The same for cargo's target folder and
/// tox's work folder and configuration. Each is refused at load now; options that name no
/// folder (`env 'PYTEST_ADDOPTS=-q -x'`, no longer read as a program) stay accepted.
#[test]
fn rev81_a_runner_variable_set_on_the_line_is_read_as_the_plan_s_env_is() {
    let setup = |line: &str| {
        let f = pytest_over_out(line);
        write_files(
            &f,
            &[
                (
                    "Cargo.toml",
                    "[package]\nname = \"x\"\nversion = \"0.1.0\"\n",
                ),
                (
                    "Makefile",
                    "test:\n\tPYTEST_ADDOPTS='-p out.plug' pytest -q tests\n",
                ),
            ],
        );
        f
    };
    let reads = "runs `pytest`, which reads its configuration from `";
    let imports = "runs `pytest`, which imports Python modules from `";
    for (line, said) in [
        (
            "PYTEST_PLUGINS=out.plug python3 -m pytest -q tests",
            imports,
        ),
        (
            "PYTEST_ADDOPTS='-p out.plug' python3 -m pytest -q tests",
            imports,
        ),
        (
            "PYTEST_ADDOPTS=-pout.plug python3 -m pytest -q tests",
            imports,
        ),
        (
            "export PYTEST_ADDOPTS='-p out.plug'; python3 -m pytest -q tests",
            imports,
        ),
        (
            "env PYTEST_PLUGINS=out.plug python3 -m pytest -q tests",
            imports,
        ),
        (
            "env 'PYTEST_ADDOPTS=-p out.plug' python3 -m pytest -q tests",
            imports,
        ),
        ("PYTEST_ADDOPTS=--rootdir=out pytest -q tests", reads),
        ("PYTEST_ADDOPTS=out pytest -q tests", reads),
        ("set -a; PYTEST_ADDOPTS=out; pytest -q tests", reads),
        (
            "CARGO_TARGET_DIR=out cargo test",
            "runs `cargo`, which builds its tests into `",
        ),
        (
            "env CARGO_BUILD_TARGET_DIR=out cargo test",
            "runs `cargo`, which builds its tests into `",
        ),
        (
            "TOX_WORK_DIR=out tox",
            "runs `tox`, which runs the tests from the environments",
        ),
    ] {
        assert_definition_refused(&setup(line), said);
    }
    for (line, said) in [
        ("TOX_CONFIG_FILE=out/tox.ini tox", "sets `TOX_CONFIG_FILE`"),
        (
            "make -B test",
            "runs `make`, whose recipe runs `pytest` over a folder",
        ),
    ] {
        check(&setup(line))
            .code(2)
            .stderr(predicate::str::contains(said));
    }
    // Gate's own environment reaches the check where the plan does not set the name.
    let f = setup("python3 -m pytest -q tests");
    check(&f).code(0);
    gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .env("PYTEST_PLUGINS", "out.plug")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(imports));
    for line in [
        "env 'PYTEST_ADDOPTS=-q -x' python3 -m pytest tests",
        "PYTEST_ADDOPTS='-q -x -p no:cacheprovider' pytest tests",
        "CARGO_TARGET_DIR=/tmp/gate-cargo-target cargo metadata --offline",
    ] {
        check(&setup(line)).code(0);
    }
}

/// Review 81: a `cd` gate's readings took as moving the line, which `/bin/sh` does not run
/// or may not run: after `&&`/`||` with commands after it that run either way (`false && cd
/// tests; pytest -q`, and the trial decides `test -f out/skip && cd tests`), through a
/// prefix (`env`, `nice`, `timeout`, `nohup`, `stdbuf`: an external program; `time`,
/// `builtin`: dash has neither as a builtin), `pushd` and `cd -e` (dash has neither), a
/// `cd` inside a command substitution gate ended early (`\)`, a `#` comment), `cd
/// "$OLDPWD"` read with the plan's value of a variable the shell sets itself; and a `cd` or
/// a runner's variable in a file the line sources. Each let pytest collect the task's
/// folder with a trial's `out/conftest.py`: a wrong PASS. Each is refused at load now.
#[test]
fn rev81_a_cd_the_shell_may_not_run_or_a_sourced_file_s_cd_is_refused() {
    let setup = |line: &str, env: &str| {
        let f = runner_task("", &format!("    writes: [out]\n{env}"), line);
        write_files(
            &f,
            &[
                ("agent.sh", "echo 41 > out/answer.txt\n"),
                ("out/.keep", ""),
                ("tests/test_a.py", "def test_a():\n    pass\n"),
                ("graders/go.sh", "cd out\n"),
                ("graders/env.sh", "export PYTEST_ADDOPTS=out\n"),
                ("graders/ok.sh", "export FOO=1\n"),
            ],
        );
        f
    };
    for (line, said) in [
        (
            "false && cd tests; pytest -q",
            "a `cd` after `&&` that may not run",
        ),
        (
            "test -f out/skip && cd tests; pytest -q",
            "a `cd` after `&&` that may not run",
        ),
        (
            "true && cd tests || pytest -q",
            "a `cd` after `&&` that may not run",
        ),
        (
            "true || cd tests && pytest -q",
            "a `cd` after `||` that may not run",
        ),
        ("env cd tests; pytest -q", "`env cd`"),
        ("nice cd tests; pytest -q", "`nice cd`"),
        ("timeout 5 cd tests; pytest -q", "`timeout cd`"),
        ("nohup cd tests; pytest -q", "`nohup cd`"),
        ("stdbuf -o0 cd tests; pytest -q", "`stdbuf cd`"),
        ("time cd tests; pytest -q", "`time cd`"),
        ("builtin cd tests; pytest -q", "`builtin cd`"),
        (
            "pushd tests; pytest -q",
            "`pushd`, which `/bin/sh` (dash) does not have",
        ),
        ("cd -e tests; pytest -q", "the option `-e` of `cd`"),
        (
            "cd out; echo $(echo \\); cd ../tests; echo x); pytest -q",
            "the command substitution",
        ),
        (
            "cd out; echo $(echo x # )\ncd ../tests\n); pytest -q",
            "the command substitution",
        ),
        (
            "bash -c 'set -k; pytest -q tests PYTEST_ADDOPTS=out'",
            "`set -k`",
        ),
        (
            "echo out | xargs pytest -q tests",
            "`xargs` running `pytest`",
        ),
        (
            "printf '%s\\n' out | xargs -n 9 pytest -q tests",
            "`xargs` running `pytest`",
        ),
        (
            ". graders/go.sh; pytest -q tests",
            "`. graders/go.sh` with commands after it",
        ),
        (
            "eval \"$(cat graders/go.sh)\"; pytest -q tests",
            "`eval \"$(cat graders/go.sh)\"` with commands after it",
        ),
        (
            "bash -c 'source graders/env.sh && pytest -q tests'",
            "which sets `PYTEST_ADDOPTS`",
        ),
    ] {
        check(&setup(line, ""))
            .code(2)
            .stderr(predicate::str::contains(said));
    }
    // The shell's own `PWD` and `OLDPWD`, not the plan's.
    let f = setup("cd out && cd \"$OLDPWD\" && pytest -q", "");
    let tests = f.path("tests");
    for (line, var) in [
        ("cd out && cd \"$OLDPWD\" && pytest -q", "OLDPWD"),
        ("cd \"$PWD\" && pytest -q", "PWD"),
    ] {
        let env = format!("    env: {{{var}: {}}}\n", tests.display());
        check(&setup(line, &env)).code(2);
    }
    // What a user writes stays accepted.
    for line in [
        "cd tests && pytest -q",
        "true && cd tests && pytest -q",
        "command cd tests && pytest -q",
        "cd -P tests && pytest -q",
        ". graders/ok.sh && pytest -q tests",
        "cd tests || exit 1; pytest -q",
    ] {
        check(&setup(line, "")).code(0);
    }
}

/// Review 81, h19 (an over-refusal) and what its mend must keep: a makefile recipe is read
/// as the shell reads it, a line at a time from the makefile's folder (all of a recipe's
/// lines in one shell under `.ONESHELL`), with its `cd`s, its own assignments and make's
/// `@`/`-` prefixes. `cd tests && pytest -q` in a recipe is accepted (it was refused as pytest
/// over the makefile's folder); one that goes where the trials write, or where gate cannot
/// tell, is refused.
#[test]
fn rev81_h19_a_recipe_s_cd_and_assignments_are_read_as_the_shell_runs_them() {
    let setup = |makefile: &str| {
        let f = pytest_over_out("make -B check");
        write_files(&f, &[("Makefile", makefile)]);
        f
    };
    for makefile in [
        "check:\n\tcd tests && pytest -q\n",
        "check:\n\tcd out\n\tpytest -q tests\n",
        ".ONESHELL:\ncheck:\n\tcd out\n\tpytest -q ../tests\n",
        "check:\n\t@pytest -q tests\n",
    ] {
        check(&setup(makefile)).code(0);
    }
    for makefile in [
        "check:\n\tcd out && pytest -q\n",
        "check:\n\tcd $(D) && pytest -q\n",
        ".ONESHELL:\ncheck:\n\tcd out\n\tpytest -q\n",
        "check:\n\t@PYTEST_PLUGINS=out.p pytest -q tests\n",
        "check:\n\t-PYTEST_ADDOPTS='-p out.p' pytest -q tests\n",
    ] {
        check(&setup(makefile))
            .code(2)
            .stderr(predicate::str::contains(
                "runs `make`, whose recipe runs `pytest` over a folder",
            ));
    }
}

/// Review 82 (helper-145, 57 attacks on review 81's mends): 23 wrong PASSes, each a variant
/// the new rules missed (all wrong PASSes before review 81 too): a newline right after `&&`
/// (`false &&⏎cd tests⏎pytest -q`); a sourced file's `cd` behind `then`, in a file it
/// sources in turn, behind a NUL byte, through a link into `out`, or in a file found on
/// `PATH`; a runner's variable a sourced file sets by `read` or `${X:=…}`; a makefile's
/// `export PYTEST_ADDOPTS = out`, make's `PYTEST_ADDOPTS:=out` or `+=`, a recipe's `$(OPTS)`,
/// a continued recipe line, `.ONESHELL`. Each is refused at load now; the honest forms stay
/// accepted, and `… && cd tests && pytest -q || exit 1` (an over-refusal of review 81's
/// rule) is accepted.
#[test]
fn rev82_variants_of_review_81_s_cd_sourced_file_and_makefile_forms_are_refused() {
    let setup = |line: &str, files: &[(&str, &str)]| {
        let f = pytest_over_out(line);
        write_files(&f, files);
        f
    };
    let go = |text: &str| vec![("graders/go.sh", text.to_string())];
    for (line, files, said) in [
        ("false &&\ncd tests\npytest -q", vec![], "a `cd` after `&&`"),
        ("true ||\ncd tests\npytest -q", vec![], "a `cd` after `||`"),
        (
            "false && # why\ncd tests\npytest -q",
            vec![],
            "a `cd` after `&&`",
        ),
        (
            ". graders/go.sh; pytest -q tests",
            go("if [ -d out ]; then cd out; fi\n"),
            "with commands after it",
        ),
        (
            ". graders/go.sh; pytest -q tests",
            go(". graders/b.sh\n"),
            "with commands after it",
        ),
        (
            ". graders/go.sh; pytest -q tests",
            go("c\0d out\n"),
            "with commands after it",
        ),
        (
            ". graders/go.sh; pytest -q tests",
            go("read PYTEST_ADDOPTS < out/opts\nexport PYTEST_ADDOPTS\n"),
            "with commands after it",
        ),
        (
            ". graders/go.sh; pytest -q tests",
            go(": ${PYTEST_ADDOPTS:=out}\nexport PYTEST_ADDOPTS\n"),
            "with commands after it",
        ),
        (
            "cd graders && . go.sh; cd ..",
            go("true\n"),
            "looks up on `PATH`",
        ),
    ] {
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        check(&setup(line, &files))
            .code(2)
            .stderr(predicate::str::contains(said));
    }
    // A sourced file that is a link into a folder the trials write (missing at load).
    let f = setup(". graders/go.sh; pytest -q tests", &[]);
    std::fs::create_dir_all(f.path("graders")).unwrap();
    std::os::unix::fs::symlink("../out/go.sh", f.path("graders/go.sh")).unwrap();
    check(&f)
        .code(2)
        .stderr(predicate::str::contains("missing at load"));
    // make: a runner's variable where the recipe reading does not follow it.
    let recipe = "test:\n\tpytest -q tests\n";
    for (line, makefile) in [
        (
            "make -B test",
            format!("export PYTEST_ADDOPTS = out\n{recipe}"),
        ),
        ("make -B test PYTEST_ADDOPTS:=out", recipe.to_string()),
        ("make -B test PYTEST_ADDOPTS+=out", recipe.to_string()),
        (
            "make -B test",
            "OPTS = out\ntest:\n\tPYTEST_ADDOPTS=$(OPTS) pytest -q tests\n".to_string(),
        ),
        (
            "make -B test",
            "test:\n\tPYTEST_ADDOPTS=out \\\n\tpytest -q tests\n".to_string(),
        ),
        (
            "make -B test",
            ".ONESHELL:\ntest:\n\texport PYTEST_ADDOPTS=out\n\tpytest -q tests\n".to_string(),
        ),
        (
            "make -B test",
            "test: export PYTEST_ADDOPTS = out\ntest:\n\tpytest -q tests\n".to_string(),
        ),
    ] {
        check(&setup(line, &[("Makefile", &makefile)]))
            .code(2)
            .stderr(predicate::str::contains("runs `make`, whose"));
    }
    for (line, files) in [
        ("true && cd tests && pytest -q || exit 1", vec![]),
        ("cd tests && pytest -q; echo done", vec![]),
        (
            "make -B test",
            vec![(
                "Makefile",
                "test:\n\tPYTEST_ADDOPTS='-q --tb=short' pytest tests\n".to_string(),
            )],
        ),
        (". graders/go.sh && pytest -q tests", go("export FOO=1\n")),
    ] {
        let files: Vec<(&str, &str)> = files.iter().map(|(p, t)| (*p, t.as_str())).collect();
        check(&setup(line, &files)).code(0);
    }
}

/// Review 83 (helper-146, 56 attacks on reviews 81-82's rules): 28 wrong PASSes and 2 hangs.
/// A sourced file's text was scanned for words the shell builds at run time (`c''d out`,
/// `${X}d out`, `PYTEST_ADD''OPTS`), and `PATH`, `PYTHONPATH`, an alias or a function it
/// sets were not looked at: a file the line sources with commands after it is now accepted
/// only as data (`[export] NAME=literal` of names no runner or search reads) or a virtual
/// environment's `bin/activate`. A conditional `cd`'s chain is followed into subshells and
/// pipelines (`false && cd tests; (pytest -q)`, `…; true | pytest -q`, `…; echo && pytest
/// -q`); a `cd` on a line with `&` is refused. A makefile's `SHELL` (not an absolute path
/// outside the writes folders) and `BASH_ENV` are refused; a FIFO named as a makefile no
/// longer hangs the load. Honest forms stay accepted.
#[test]
fn rev83_sourced_files_are_data_and_a_conditional_cd_is_followed_into_subshells() {
    let setup = |line: &str, files: &[(&str, &str)]| {
        let f = pytest_over_out(line);
        write_files(&f, files);
        f
    };
    let sourced = ". graders/go.sh; pytest -q tests";
    for (line, go, said) in [
        (sourced, "c''d out\n", "with commands after it"),
        (sourced, "c\\d out\n", "with commands after it"),
        (sourced, "X=c\n${X}d out\n", "with commands after it"),
        (
            sourced,
            "PATH=\"$PWD/out:$PATH\"\n",
            "with commands after it",
        ),
        (sourced, "PATH=out:/usr/bin:/bin\n", "which sets `PATH`"),
        (
            sourced,
            "export PYTHONPATH=out\n",
            "which sets `PYTHONPATH`",
        ),
        (
            sourced,
            "export PYTEST_ADD''OPTS=out\n",
            "with commands after it",
        ),
        (
            sourced,
            "alias pytest='sh out/grade.sh'\n",
            "with commands after it",
        ),
        (
            sourced,
            "pytest() { sh out/grade.sh; }\n",
            "with commands after it",
        ),
        (sourced, "x=.\n$x out/go.sh\n", "with commands after it"),
        ("false && cd tests; (pytest -q)", "", "a `cd` after `&&`"),
        (
            "false && cd tests; true | pytest -q",
            "",
            "a `cd` after `&&`",
        ),
        (
            "false && cd tests; echo && pytest -q",
            "",
            "a `cd` after `&&`",
        ),
        (
            "false && cd tests; (true) && pytest -q",
            "",
            "a `cd` after `&&`",
        ),
        ("cd tests && true & pytest -q", "", "subshell"),
        ("{ cd tests; } & pytest -q", "", "subshell"),
    ] {
        check(&setup(line, &[("graders/go.sh", go)]))
            .code(2)
            .stderr(predicate::str::contains(said));
    }
    let refused = "runs `make`, whose";
    for makefile in [
        "SHELL = out/grade.sh\ntest:\n\tpytest -q tests\n",
        "SHELL := /bin/bash\nexport BASH_ENV := out/go.sh\ntest:\n\tpytest -q tests\n",
    ] {
        check(&setup("make -B test", &[("Makefile", makefile)]))
            .code(2)
            .stderr(predicate::str::contains(refused));
    }
    for (line, files) in [
        (
            ". graders/go.sh && pytest -q tests",
            vec![(
                "graders/go.sh",
                "# set up; no need to cd anywhere\nexport FOO='a b'\nBAR=1\n",
            )],
        ),
        (
            "eval \"$(cat graders/go.sh)\"",
            vec![("graders/go.sh", "cd tests && pytest -q\n")],
        ),
        ("true && cd tests && (pytest -q)", vec![]),
        (
            "test -d tests && cd tests && pytest -q || { echo failed >&2; exit 1; }",
            vec![],
        ),
        (
            "make -B test",
            vec![(
                "Makefile",
                "SHELL := /bin/bash\n# PYTEST_ADDOPTS=-x stops at the first failure\ntest:\n\t@echo testing\n\tpytest -q tests\n",
            )],
        ),
    ] {
        check(&setup(line, &files)).code(0);
    }
    // A virtual environment's own `activate`, sourced before the check's commands.
    let f = setup(". venv/bin/activate && pytest -q tests", &[]);
    write_files(
        &f,
        &[
            ("venv/pyvenv.cfg", "home = /usr/bin\n"),
            (
                "venv/bin/activate",
                "deactivate () { unset VIRTUAL_ENV; }\nVIRTUAL_ENV=\"$PWD/venv\"\nexport VIRTUAL_ENV\n",
            ),
        ],
    );
    check(&f).code(0);
    // A FIFO where a makefile is read does not hold the load up.
    let f = setup("make -B test", &[]);
    let made = std::process::Command::new("mkfifo")
        .arg(f.path("Makefile"))
        .status()
        .is_ok_and(|s| s.success());
    if made {
        let out = gate()
            .current_dir(f.dir.path())
            .args(["check", "plan.yaml"])
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        assert!(
            out.status.code().is_some(),
            "gate check hung on a FIFO makefile"
        );
    }
}

/// Review 84 (helper-147, 157 honest check lines against review 83's rules): 13 over-refusals
/// of lines that worked, mended: a makefile's `SHELL := bash` or `/usr/bin/env bash` (a name
/// looked up on `PATH`, whose entries gate checks), `unexport BASH_ENV`, a literal `export
/// PYTEST_ADDOPTS := -p no:cacheprovider` or `CARGO_TARGET_DIR ?= build/target` (now read as
/// the recipe's environment, so `:= out` is still refused); a `cd` after a background command
/// (`true & cd tests && pytest -q`: `&` puts only its own list in a subshell); a sourced `.env`
/// whose quoted value holds `?` or whose line ends in a comment.
#[test]
fn rev84_honest_makefiles_background_commands_and_env_files_are_accepted() {
    let setup = |line: &str, files: &[(&str, &str)]| {
        let f = pytest_over_out(line);
        write_files(&f, files);
        f
    };
    let recipe = "test:\n\tpytest -q tests\n";
    for makefile in [
        format!("SHELL := bash\n.SHELLFLAGS := -eu -o pipefail -c\n{recipe}"),
        format!("SHELL := /usr/bin/env bash\n{recipe}"),
        format!("unexport BASH_ENV\n{recipe}"),
        format!("export PYTEST_ADDOPTS := -p no:cacheprovider\n{recipe}"),
        format!("export CARGO_TARGET_DIR ?= build/target\n{recipe}"),
        format!("PYTEST_ADDOPTS ?= -q\nexport PYTEST_ADDOPTS\n{recipe}"),
    ] {
        check(&setup("make -B test", &[("Makefile", &makefile)])).code(0);
    }
    for (makefile, said) in [
        (
            format!("export PYTEST_ADDOPTS := out\n{recipe}"),
            "whose recipe runs `pytest` over a folder",
        ),
        (
            format!("OPTS = out\nexport PYTEST_ADDOPTS := $(OPTS)\n{recipe}"),
            "whose makefile sets `PYTEST_ADDOPTS`",
        ),
        (
            format!("export PYTEST_ADDOPTS := $(shell cat opts)\n{recipe}"),
            "whose makefile sets `PYTEST_ADDOPTS`",
        ),
        (
            format!("SHELL = out/grade.sh\n{recipe}"),
            "runs every recipe through `SHELL = out/grade.sh`",
        ),
    ] {
        check(&setup("make -B test", &[("Makefile", &makefile)]))
            .code(2)
            .stderr(predicate::str::contains(said));
    }
    for line in [
        "true & cd tests && pytest -q",
        "(true &); cd tests && pytest -q",
    ] {
        check(&setup(line, &[])).code(0);
    }
    for line in ["cd tests && true & pytest -q", "{ cd tests; } & pytest -q"] {
        check(&setup(line, &[]))
            .code(2)
            .stderr(predicate::str::contains("subshell"));
    }
    let env = "DATABASE_URL=\"postgres://localhost/db?sslmode=disable\"\nDEBUG=1 # verbose\nNAME='a b' # quoted\n";
    check(&setup(
        "set -a; . ./.env; set +a; pytest -q tests",
        &[(".env", env)],
    ))
    .code(0);
    check(&setup(
        "set -a; . ./.env; set +a; pytest -q tests",
        &[(".env", "X=\"$(echo out)\"\n")],
    ))
    .code(2)
    .stderr(predicate::str::contains("more than data"));
}

/// Review 83's leftovers (helper-146): five wrong PASSes through make's own language, which
/// gate read as text where make evaluates it. The makefile's variables are now expanded as
/// make expands them (`=`, `:=`, `?=`, `+=`, `define`, conditionals, the `make` line's own),
/// what make computes (a function, a variable the makefile does not set) is refused where it
/// could change what a recipe runs or where, and a recipe's own `make` is read as the check
/// line's is. Each of the five:
/// 1. a name built from variables: `export PYTEST_$(A)OPTS = out` is `PYTEST_ADDOPTS`;
/// 2. a recipe word built from variables: `py$(E)test -q out` is pytest over `out`;
/// 3. a special target built from variables: `.ONE$(E)SHELL:` is `.ONESHELL`, so a recipe's
///    `cd out` holds for its `pytest -q` on the next line;
/// 4. a recipe in a `define`: `$(RUN) && pytest -q tests` with `RUN` holding `cd out`;
/// 5. a recipe's own make (`$(MAKE) -C sub`, `make -f other.mk`) over a makefile that runs
///    pytest in `out`, or whose makefile lies in `out`; an `include`.
///
/// Each is refused at load, as are the same names built from what make computes; honest
/// makefiles (`$(PYTHON) -m pytest`, `$(PYTEST) tests`, a venv's python, a conditional
/// `PY`, `$(MAKE)` of other targets or of an honest sub-makefile) stay accepted.
#[test]
fn rev85_make_s_own_language_is_evaluated_or_refused() {
    let setup = |files: &[(&str, &str)]| {
        let f = pytest_over_out("make -B test");
        write_files(&f, files);
        f
    };
    let over = "whose recipe runs `pytest` over a folder";
    // (what, the files, what the refusal says)
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], &'a str);
    let cases: [Case; 12] = [
        // 1.
        (
            "a name built from variables",
            &[(
                "Makefile",
                "A = ADD\nexport PYTEST_$(A)OPTS = out\ntest:\n\tpytest -q tests\n",
            )],
            over,
        ),
        // 2.
        (
            "a recipe word built from variables",
            &[("Makefile", "E =\ntest:\n\tpy$(E)test -q out\n")],
            over,
        ),
        // 3.
        (
            "a special target built from variables",
            &[(
                "Makefile",
                "E =\n.ONE$(E)SHELL:\ntest:\n\tcd out\n\tpytest -q\n",
            )],
            over,
        ),
        // 4.
        (
            "a recipe in a define",
            &[(
                "Makefile",
                "define RUN\ncd out\nendef\ntest:\n\t$(RUN) && pytest -q tests\n",
            )],
            over,
        ),
        // 5: a sub-make's makefile read as the check line's is.
        (
            "$(MAKE) -C sub",
            &[
                ("Makefile", "test:\n\t$(MAKE) -C sub test\n"),
                ("sub/Makefile", "test:\n\tcd ../out && pytest -q\n"),
            ],
            over,
        ),
        (
            "cd sub && make -f other.mk",
            &[
                ("Makefile", "test:\n\tcd sub && make -f other.mk\n"),
                ("sub/other.mk", "all:\n\tpytest -q ../out\n"),
            ],
            over,
        ),
        (
            "a sub-makefile the trials write",
            &[("Makefile", "test:\n\t$(MAKE) -C out\n")],
            "in a folder the trials write",
        ),
        (
            "an include",
            &[
                ("Makefile", "include other.mk\ntest:\n\tpytest -q tests\n"),
                ("other.mk", ""),
            ],
            "includes another",
        ),
        // The same names built from what make computes.
        (
            "a computed variable name",
            &[(
                "Makefile",
                "export PYTEST_$(A)OPTS = out\ntest:\n\tpytest -q tests\n",
            )],
            "whose name make computes",
        ),
        (
            "a computed recipe word",
            &[("Makefile", "test:\n\tpy$(shell true)test -q out\n")],
            // (Read as the recipe's shell reads it since review 90: a program computed when
            // the line runs.)
            "a program the shell computes",
        ),
        (
            "a computed special target",
            &[("Makefile", ".ONE$(E)SHELL:\ntest:\n\tcd out\n\tpytest -q\n")],
            // (The makefile as written is read first: `pytest -q` over the makefile's
            // folder, which holds `out`.)
            over,
        ),
        (
            "a variable only a conditional gate cannot decide sets",
            &[(
                "Makefile",
                "ifdef CI\nRUN = python3 -m pytest\nendif\ntest:\n\t$(RUN) -q tests\n",
            )],
            // (Since review 90 the recipe's shell reading names it first.)
            "computes",
        ),
    ];
    for (what, files, said) in cases {
        let out = check(&setup(files)).get_output().clone();
        assert_eq!(out.status.code(), Some(2), "{what}: {}", both(&out));
        assert!(both(&out).contains(said), "{what}: {}", both(&out));
    }
    let honest: [&[(&str, &str)]; 9] = [
        &[(
            "Makefile",
            "PYTHON ?= python3\ntest:\n\t$(PYTHON) -m pytest -q tests\n",
        )],
        &[(
            "Makefile",
            "PYTEST = python3 -m pytest\ntest:\n\t$(PYTEST) tests\n",
        )],
        &[(
            "Makefile",
            "VENV = .venv\nPY = $(VENV)/bin/python\ntest:\n\t$(PY) -m pytest -q tests\n",
        )],
        &[("Makefile", ".PHONY: test\ntest:\n\tpytest -q tests\n")],
        &[(
            "Makefile",
            "ifeq ($(OS),Windows_NT)\nPY = python\nelse\nPY = python3\nendif\ntest:\n\t$(PY) -m pytest -q tests\n",
        )],
        &[(
            "Makefile",
            ".PHONY: docs test\ndocs:\n\t$(MAKE) -C docs html\n\t$(SPHINX) -b html . _build\ntest:\n\tpytest -q tests\n",
        )],
        &[(
            "Makefile",
            "test: lint unit\nlint:\n\t@echo lint\nunit:\n\t$(MAKE) --no-print-directory run\nrun:\n\tpytest -q tests\n",
        )],
        &[
            ("Makefile", "test:\n\t$(MAKE) -C sub test\n"),
            ("sub/Makefile", "test:\n\tpytest -q ../tests\n"),
        ],
        &[(
            "Makefile",
            "PYTEST_FLAGS := -q\nPYTEST_FLAGS += -x\ntest:\n\tpytest $(PYTEST_FLAGS) tests\n\trm -rf $(wildcard .cache/*)\n",
        )],
    ];
    for files in honest {
        let out = check(&setup(files)).get_output().clone();
        assert_eq!(out.status.code(), Some(0), "{files:?}: {}", both(&out));
    }
}

/// A makefile attack: what it does, the check line, the files it writes.
type MakeCase<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);

/// Each case (what, check line, files) over `pytest_over_out` is refused by `gate check`.
fn refused_each(cases: &[MakeCase]) {
    for (what, line, files) in cases {
        let f = pytest_over_out(line);
        write_files(&f, files);
        let out = check(&f).get_output().clone();
        assert_eq!(out.status.code(), Some(2), "{what}: {}", both(&out));
    }
}

/// Review 89 (helper-152, 24 attacks on review 88's fixes, each proved with GNU make 4.3): 17
/// more ways in through what a recipe's shell does, all refused now: the folder lost to
/// `popd`, `eval`, a sourced script, `cd -` and a glob (`cd [o]ut`); `make` run by any
/// program (`find -exec`, `chrt`) or by one the shell computes (`$$(command -v make)`,
/// `$${GMAKE:-make}`); a program run in a folder the trials write (`cd out && ls` with `.` on
/// `PATH`, `python3 -m json.tool` importing `out/json`); `git -C out` (its config's
/// `core.fsmonitor`); a recipe's own `MAKEFLAGS='D=out'`; `xargs pytest`, `find -exec
/// pytest`; `pytest -o addopts=out`.
#[test]
fn rev89_a_recipe_s_shell_loses_no_folder_and_runs_no_trial_code() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 23] = [
        (
            "bash popd back into out",
            "make -B test",
            &[(
                "Makefile",
                "SHELL := /bin/bash\ntest:\n\tpushd out >/dev/null; pushd .. >/dev/null; popd >/dev/null; $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "builtin cd submake",
            "make -B test",
            &[(
                "Makefile",
                "SHELL := /bin/bash\ntest:\n\tbuiltin cd out && $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "eval cd submake",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\teval cd out && $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "source script cd submake",
            "make -B test",
            &[
                (
                    "Makefile",
                    "test:\n\t. ./go.sh && $(MAKE) -s check\ncheck:\n\t@true\n",
                ),
                ("go.sh", "cd out\n"),
            ],
        ),
        (
            "find exec submake",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tfind . -maxdepth 1 -name out -exec $(MAKE) -s -C {} check \\;\ncheck:\n\t@true\n",
            )],
        ),
        (
            "cmdsubst make path",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\t$$(command -v make) -s -C out check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "param default make",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\t$${GMAKE:-make} -s -C out check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "bash c cd submake",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tbash -c 'cd out && $(MAKE) -s check'\ncheck:\n\t@true\n",
            )],
        ),
        (
            "path empty element cd out ls",
            "make -B test",
            &[(
                "Makefile",
                "export PATH := :$(PATH)\ntest:\n\tcd out && ls >/dev/null\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "path dot cd out ls",
            "make -B test",
            &[(
                "Makefile",
                "export PATH := .:$(PATH)\ntest:\n\tcd out && ls >/dev/null\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "cd out python m json tool",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tcd out && python3 -m json.tool r.json >/dev/null || true\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "git C out fsmonitor",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tgit -C out status --porcelain >/dev/null 2>&1 || true\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "script qc submake",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tscript -qc \"$(MAKE) -s -C out check\" /dev/null\ncheck:\n\t@true\n",
            )],
        ),
        (
            "chrt submake",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tchrt -o 0 $(MAKE) -s -C out check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "makeflags env line var submake",
            "make -B test",
            &[(
                "Makefile",
                "D = tests\nP = pytest\ntest:\n\tMAKEFLAGS='D=out' $(MAKE) -s check\ncheck:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "glob cd literal bracket dir",
            "make -B test",
            &[
                (
                    "Makefile",
                    "test:\n\tcd [o]ut && $(MAKE) -s check\ncheck:\n\t@true\n",
                ),
                ("[o]ut/Makefile", "check:\n\t@true\n"),
            ],
        ),
        (
            "cd dash oldpwd with dash dir",
            "make -B test",
            &[
                (
                    "Makefile",
                    "test:\n\tcd out && cd .. && cd - >/dev/null && $(MAKE) -s check\ncheck:\n\t@true\n",
                ),
                ("-/Makefile", "check:\n\t@true\n"),
            ],
        ),
        (
            "eval cd pytest",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\teval cd out && pytest -q -p no:cacheprovider\n",
            )],
        ),
        (
            "xargs pytest path from stdin",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tls -d ou? | xargs pytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "find exec pytest",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tfind . -maxdepth 1 -name out -exec pytest -q -p no:cacheprovider tests {} +\n",
            )],
        ),
        (
            "pytest o testpaths out",
            "make -B test",
            &[
                (
                    "Makefile",
                    "test:\n\tpytest -q -p no:cacheprovider -o testpaths=out\n",
                ),
                ("pytest.ini", "[pytest]\ntestpaths = tests\n"),
            ],
        ),
        (
            "pytest o addopts out",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tpytest -q -p no:cacheprovider -o addopts=out tests\n",
            )],
        ),
        (
            "python m pytest glued p module",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tpython3 -m pytest -q -p no:cacheprovider -pout.conftest tests\n",
            )],
        ),
    ];
    refused_each(&cases);
    // What still reads plainly: a recipe that prints, a `cd` into the tests, `git` over the
    // task's own repository (its tracked files only, `-uno`: since review 90 a recipe's git
    // is read as the check line's is).
    let f = pytest_over_out("make -B test");
    write_files(
        &f,
        &[(
            "Makefile",
            "test:\n\t@echo running make test\n\tgit status --porcelain -uno >/dev/null || true\n\tcd tests && pytest -q\n",
        )],
    );
    let out = check(&f).get_output().clone();
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
}

/// Review 88 (helper-151, 30 attacks on review 87's fixes, each proved with GNU make 4.3): 23
/// more ways in, all refused now: `.SECONDEXPANSION` running `$$(eval …)`; `$(eval` or
/// `$(shell` with a newline after the name; a nested `define` in a skipped branch; text after
/// a condition (`ifeq (a,a) )`, `ifeq "a" "a" "b"`); a NUL; `PATH` or `HOME` set without
/// `export` (make exports what came from its environment), `sh -l`; an exported value of
/// automatic variables (`$<`, `$(@D)`); `$(info ) $(R)` holding a rule; `test: $(R)` with `R`
/// holding `; recipe`; a sub-make's long options by prefix (`--dir=`, `--ev=`, `--makef=`);
/// `env -C out make`; `.ONESHELL`'s `pushd out` before `$(MAKE)`; `BASH_FUNC_cd%`;
/// `PYTHONWARNINGS` importing `out.w`; `define MAKEFLAGS +=`; a recipe's own
/// `PYTHONPATH=out`. An honest `export CFLAGS ?= -O2 -Wall` (compiler options only) is
/// accepted again.
#[test]
fn rev88_make_reads_no_makefile_more_loosely_than_make_again() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 30] = [
        (
            "secondexp eval dollardollar",
            "make -B test",
            &[(
                "Makefile",
                ".SECONDEXPANSION:\nP = pytest\nD = tests\ndefine SET\nD = out\nendef\ntest: $$(eval $$(SET))\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "secondexp eval file trial mk",
            "make -B test",
            &[(
                "Makefile",
                ".SECONDEXPANSION:\ntest: $$(eval $$(file <out/extra.mk))\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "define eval newline",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\ndefine SET\n$(eval\nD = out)\nendef\nX := $(SET)\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "define shell newline readtime",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = out\ndefine RUN\n$(shell\ncd $(D) && $(P) -q -p no:cacheprovider >/dev/null 2>&1; echo $$?)\nendef\nSTATUS := $(RUN)\ntest:\n\t@exit $(STATUS:%=%)\n",
            )],
        ),
        (
            "ignored define no nesting",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\nifeq (a,b)\ndefine X\ndefine Y\nendef\nendif\nD = out\nifeq (a,b)\nendef\nendif\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "ifeq paren extratext",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\nifeq (a,a) )\nD = out\nendif\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "ifeq quote extratext",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\nifeq \"a\" \"a\" \"b\"\nD = out\nendif\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "nul joins next line",
            "make -B test",
            &[(
                "Makefile",
                "export PYTHONPATH := $(CURDIR)/tests\u{0}\n:$(CURDIR)/out\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "env origin PATH unexported",
            "make -B test",
            &[(
                "Makefile",
                "PATH := $(CURDIR)/out:$(PATH)\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "env origin HOME login shell",
            "make -B test",
            &[(
                "Makefile",
                "SHELL := sh -l\nHOME := $(CURDIR)/out\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "export pythonpath automatic var",
            "make -B test",
            &[(
                "Makefile",
                "export PYTHONPATH = $<\ntest: out\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "export PATH automatic dir",
            "make -B test",
            &[(
                "Makefile",
                "SYSPATH := $(PATH)\nexport PATH = $(CURDIR)/$(@D):$(SYSPATH)\ntest: out/report.txt\nout/report.txt:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "info prefix hides rule var",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = out\nR = test: ; cd $(D) && $(P) -q -p no:cacheprovider\n$(info ) $(R)\n",
            )],
        ),
        (
            "prereq var semicolon recipe",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = out\nR = ; cd $(D) && $(P) -q -p no:cacheprovider\ntest: $(R)\n",
            )],
        ),
        (
            "submake long option prefix dir",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\t$(MAKE) --dir=out -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "submake under timeout",
            "make -B test",
            &[
                ("Makefile", "test:\n\ttimeout 600 $(MAKE) -f sub.mk\n"),
                (
                    "sub.mk",
                    "P = pytest\nall:\n\tcd out && $(P) -q -p no:cacheprovider\n",
                ),
            ],
        ),
        (
            "submake env chdir",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tenv -C out $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "oneshell pushd line submake",
            "make -B test",
            &[(
                "Makefile",
                "SHELL := /bin/bash\n.ONESHELL:\ntest:\n\tpushd out >/dev/null\n\t$(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "export bash function",
            "make -B test",
            &[(
                "Makefile",
                "SHELL := /bin/bash\nexport BASH_FUNC_cd%% := () { builtin cd out; }\ntest:\n\tcd tests && pytest -q -p no:cacheprovider\n",
            )],
        ),
        (
            "pythonwarnings imports trial module",
            "make -B test",
            &[(
                "Makefile",
                "export PYTHONPATH := .\nexport PYTHONWARNINGS := ignore::out.w.W\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "submake long option prefix eval",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\t$(MAKE) --ev='include out/extra.mk' -s check\ncheck:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "submake long option prefix file",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\t$(MAKE) --makef=out/x.mk -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "define makeflags var",
            "make -B test",
            &[(
                "Makefile",
                "define MAKEFLAGS +=\nD=out\nendef\nP = pytest\nD = tests\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "check line make dir prefix",
            "make --dir=out -B test",
            &[("Makefile", "test:\n\tpytest -q -p no:cacheprovider tests\n")],
        ),
        (
            "recipe line pythonpath out",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tPYTHONPATH=out pytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "shellflags no c script file",
            "make -B test",
            &[("Makefile", ".SHELLFLAGS := -e\ntest:\n\tout/x'\n")],
        ),
        (
            "submake inside sh c",
            "make -B test",
            &[
                ("Makefile", "test:\n\tsh -c '$(MAKE) -f sub.mk'\n"),
                (
                    "sub.mk",
                    "P = pytest\nall:\n\tcd out && $(P) -q -p no:cacheprovider\n",
                ),
            ],
        ),
        (
            "export pytest plugins module",
            "make -B test",
            &[(
                "Makefile",
                "export PYTHONPATH := .\nexport PYTEST_PLUGINS := out.conftest\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "override export shell python",
            "make -B test",
            &[(
                "Makefile",
                "override export SHELL := python3\ntest:\n\timport runpy; runpy.run_path(\"out/x.py\")\n",
            )],
        ),
        (
            "private export pythonpath target",
            "make -B test",
            &[(
                "Makefile",
                "test: private export PYTHONPATH = $(CURDIR)/out\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
    ];
    refused_each(&cases);
    for makefile in [
        "export CFLAGS ?= -O2 -Wall\ntest:\n\tpytest -q tests\n",
        "export PATH := $(CURDIR)/.venv/bin:$(PATH)\ntest:\n\tPATH=$$PATH pytest -q tests\n",
        "SHELL := /usr/bin/env bash\nMAKEFLAGS += -j4 --output-sync=target\ntest:\n\tpytest -q tests\n",
    ] {
        let f = pytest_over_out("make -B test");
        write_files(&f, &[("Makefile", makefile)]);
        let out = check(&f).get_output().clone();
        assert_eq!(out.status.code(), Some(0), "{makefile:?}: {}", both(&out));
    }
}

/// Review 87 (helper-150, 36 attacks on the evaluation of make's language, each proved with
/// GNU make 4.3 running the trial's code): 31 makefiles were read more loosely than make
/// reads them (`cd $(D) && $(P)`, pytest named only in a variable, so the reading as written
/// saw nothing): a tab line after `vpath`, `export`, `undefine`, `unexport` or a `$(info)`
/// line is a makefile line to make, not a recipe; a condition split at a plain parenthesis'
/// comma, or whose first argument keeps its leading blank; `$(A:=x)`; `\\` at a line's
/// end; a tab-indented `define`/`endef` in a `define`'s body; `MAKEFLAGS += D=out`,
/// `MAKEOVERRIDES`; a target's `export` to a sub-make; `CC` run by make's built-in rules;
/// `.EXTRA_PREREQS`; a static pattern's stem; a login or interactive `.SHELLFLAGS`; an
/// exported `HOME`, `ENV` or `PYTHONPATH` in `out`; `-load`; `$(eval $(file <out/x.mk))`;
/// `vpath`/`VPATH`; a no-break space; `\` before a CRLF; `.RECIPEPREFIX` by `define`;
/// `SHELL := python3`; `make -f A -f B`; and (found while fixing them) a value's blank before
/// its comment (`A = a # c` is `a `, so `ifeq ($(A),a)` is false). Each is refused now.
#[test]
fn rev87_make_reads_no_makefile_more_loosely_than_make() {
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 32] = [
        (
            "vpath ends rule",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\ndummy:\n\t@true\nvpath %.q tests\n\tD = out\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "export name ends rule",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\ndummy:\n\t@true\nexport LANG\n\tD = out\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "undefine ends rule",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\ndummy:\n\t@true\nundefine NOTHING\n\tD = out\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "info line ends rule",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\ndummy:\n\t@true\n$(info reading the makefile)\n\tD = out\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "unexport ends rule",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\ndummy:\n\t@true\nunexport NOTHING\n\tD = out\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "ifeq plain parens",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\nifeq ((x,y),(x,y))\nD = out\nendif\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "subst ref empty from",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nA = tests/\ntest:\n\tcd $(A:=../out) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "double backslash assignment",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\nX = a \\\\\nD = out\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "tab endef in define",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = out\ndefine X\n\tendef\nD = tests\n\tdefine Y\nendef\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "tab define in define",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\ndefine X\n\tdefine\nendef\nD = out\ndummy:\n\tendef\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "makeflags plus hidden pytest",
            "make -B test",
            &[(
                "Makefile",
                "MAKEFLAGS += D=out\nP = pytest\nD = tests\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "target export to submake",
            "make -B test",
            &[
                (
                    "Makefile",
                    "test: export D = out\ntest:\n\t$(MAKE) -f sub.mk\n",
                ),
                (
                    "sub.mk",
                    "P = pytest\nD ?= tests\nall:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
                ),
            ],
        ),
        (
            "makeoverrides to submake",
            "make -B test Z=1",
            &[
                (
                    "Makefile",
                    "MAKEOVERRIDES := D=out\ntest:\n\t$(MAKE) -f sub.mk\n",
                ),
                (
                    "sub.mk",
                    "P = pytest\nD ?= tests\nall:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
                ),
            ],
        ),
        (
            "makeflags to submake",
            "make -B test",
            &[
                (
                    "Makefile",
                    "MAKEFLAGS += D=out\ntest:\n\t$(MAKE) -f sub.mk\n",
                ),
                (
                    "sub.mk",
                    "P = pytest\nD ?= tests\nall:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
                ),
            ],
        ),
        (
            "builtin implicit rule CC",
            "make -B test",
            &[
                (
                    "Makefile",
                    "P = pytest\nCC = cd out && $(P) -q -p no:cacheprovider; true\ntest: x.o\n\t@echo built\n",
                ),
                ("x.c", "int main(void){return 0;}\n"),
            ],
        ),
        (
            "extra prereqs unreached rule",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\n.EXTRA_PREREQS := setup\ntest:\n\t@echo testing\nsetup:\n\tcd out && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "static pattern stem prereq",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\ntest: t%: s%\n\t@echo testing\nsest:\n\tcd out && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "shellflags login home out",
            "make -B test",
            &[(
                "Makefile",
                "export HOME := $(CURDIR)/out\n.SHELLFLAGS := -lc\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "shellflags interactive ENV",
            "make -B test",
            &[(
                "Makefile",
                "export ENV := $(CURDIR)/out/rc\n.SHELLFLAGS := -ic\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "export pythonpath sitecustomize",
            "make -B test",
            &[(
                "Makefile",
                "export PYTHONPATH := $(CURDIR)/out\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "load shared object from out",
            "make -B test",
            &[(
                "Makefile",
                "-load out/x.so\ntest:\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "file read eval in assignment",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\nX := $(eval $(file <out/x.mk))\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "vpath automatic var pytest",
            "make -B test",
            &[
                (
                    "Makefile",
                    "vpath %.py out\ntest: conftest.py\n\tpytest -q -p no:cacheprovider tests $(<D)\n",
                ),
                ("conftest.py.in", ""),
            ],
        ),
        (
            "VPATH script via dollar lt",
            "make -B test",
            &[(
                "Makefile",
                "VPATH = out\ntest: run.sh\n\tsh $<\n\tpytest -q -p no:cacheprovider tests\n",
            )],
        ),
        (
            "nbsp in variable name",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = out\nD\u{a0}= tests\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "crlf continuation",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = out\nX = a \\\r\nD = tests\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "recipeprefix define hidden recipe",
            "make -B test",
            &[(
                "Makefile",
                "define .RECIPEPREFIX\n>\nendef\nP = pytest\ntest:\n>X=1 cd out && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "nbsp endef in define",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = out\ndefine X\n\u{a0}endef\nD = tests\n\u{a0}define Y\nendef\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "ifneq leading space",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nD = tests\nifneq ( a,a)\nD = out\nendif\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
        (
            "SHELL python3 concat path",
            "make -B test",
            &[(
                "Makefile",
                "SHELL := python3\ntest:\n\timport runpy; runpy.run_path(\"o\" + \"ut/x.py\")\n",
            )],
        ),
        (
            "check line two f",
            "make -f Makefile -f extra.mk -B test",
            &[
                (
                    "Makefile",
                    "P = pytest\nD = tests\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
                ),
                ("extra.mk", "D = out\n"),
            ],
        ),
        (
            "trailing space before comment",
            "make -B test",
            &[(
                "Makefile",
                "P = pytest\nA = a # the value keeps the blank before the comment\nD = out\nifeq ($(A),a)\nD = tests\nendif\ntest:\n\tcd $(D) && $(P) -q -p no:cacheprovider\n",
            )],
        ),
    ];
    refused_each(&cases);
    // What honest makefiles write stays accepted: a condition with a blank after its comma,
    // options in `MAKEFLAGS`, a strict bash, a venv on `PATH`, `src` on `PYTHONPATH`, CRLF
    // line ends, a `$(info)` line between rules.
    let honest: [&str; 7] = [
        "P = pytest\nifeq ($(CI), true)\nD = tests\nelse\nD = tests\nendif\ntest:\n\tcd $(D) && $(P) -q\n",
        "MAKEFLAGS += --no-print-directory -s\ntest:\n\tpytest -q tests\n",
        "SHELL := /bin/bash\n.SHELLFLAGS := -eu -o pipefail -c\ntest:\n\tpytest -q tests\n",
        "export PATH := $(CURDIR)/.venv/bin:$(PATH)\ntest:\n\tpytest -q tests\n",
        "export PYTHONPATH := $(CURDIR)/src\ntest:\n\tpytest -q tests\n",
        "P = pytest\r\nD = tests\r\ntest:\r\n\tcd $(D) && $(P) -q\r\n",
        "all: test\n$(info building)\ntest:\n\tpytest -q tests\n",
    ];
    for makefile in honest {
        let f = pytest_over_out("make -B test");
        write_files(&f, &[("Makefile", makefile)]);
        let out = check(&f).get_output().clone();
        assert_eq!(out.status.code(), Some(0), "{makefile:?}: {}", both(&out));
    }
}

/// Review 86 (helper-149, 45 attacks and 23 honest makefiles on review 85's evaluation of
/// make's language): the evaluation read 17 makefiles more loosely than the reading as
/// written had, where it and make differ (`$(eval …)` in a recipe or hidden behind `$(info
/// …)`, a tab-indented `define` in a `define`'s body, the line's own `D=out` over `D ?=
/// tests`), and six wrong PASSes were older (a recipe's `make` under
/// `.EXPORT_ALL_VARIABLES` or `-e`, an exported `MAKEFILES`, a recipe running a trial's
/// script or program, `make -f Makefile` on the check line); make's remaking of its own
/// makefile ran a rule no goal reached; a `$(shell $(CMD))` while make reads the makefile
/// chose the status or the recipe. The makefile as written is now read first (the
/// evaluation only adds refusals), and each of the rest is refused. `$(SHELL) script` (make's
/// `SHELL` is `/bin/sh` unless the makefile says) is accepted.
#[test]
fn rev86_the_evaluated_makefile_never_reads_looser_than_the_makefile_as_written() {
    let cmd = "CMD = cd out && python3 -m pytest -q >/dev/null 2>&1; echo $$?\n";
    let shell_status = format!("{cmd}R := $(shell $(CMD))\ntest:\n\t@exit $(R)\n");
    let shell_if = format!(
        "{cmd}ifeq ($(shell $(CMD)),0)\nRUN = true\nelse\nRUN = pytest -q tests\nendif\ntest:\n\t$(RUN)\n"
    );
    let shell_prereq = format!("{cmd}test: $(shell $(CMD) >/dev/null)\n\tpytest -q tests\n");
    type Case<'a> = (&'a str, &'a str, &'a [(&'a str, &'a str)]);
    let cases: [Case; 14] = [
        (
            "a $(shell) of a variable's command decides the status",
            "make -B test",
            &[("Makefile", &shell_status)],
        ),
        (
            "a $(shell) of a variable's command in a condition",
            "make -B test",
            &[("Makefile", &shell_if)],
        ),
        (
            "a $(shell) of a variable's command in a prerequisite",
            "make -B test",
            &[("Makefile", &shell_prereq)],
        ),
        (
            "an eval in a recipe",
            "make -B test",
            &[(
                "Makefile",
                "D = tests\ntest:\n\t@echo start $(eval D := out)\n\tpytest -q $(D)\n",
            )],
        ),
        (
            "an eval behind an info",
            "make -B test",
            &[(
                "Makefile",
                "$(info checking) $(eval test: ; cd out && python3 -m pytest -q)\n",
            )],
        ),
        (
            "a tab-indented define in a define's body",
            "make -B test",
            &[(
                "Makefile",
                "define X\n\tdefine\nendef\ntest:\n\tcd out && pytest -q\ndefine Y\n\tendef\nendef\n",
            )],
        ),
        (
            "the line's own variable over `?=`",
            "D=out make -B test",
            &[("Makefile", "D ?= tests\ntest:\n\tpytest -q $(D)\n")],
        ),
        (
            "a sub-make under .EXPORT_ALL_VARIABLES",
            "make -B test",
            &[
                (
                    "Makefile",
                    "D = ../out\n.EXPORT_ALL_VARIABLES:\ntest:\n\t$(MAKE) -C sub test\n",
                ),
                ("sub/Makefile", "D ?= ../tests\ntest:\n\tpytest -q $(D)\n"),
            ],
        ),
        (
            "a sub-make with -e",
            "make -B test",
            &[
                (
                    "Makefile",
                    "export D = ../out\ntest:\n\t$(MAKE) -e -C sub test\n",
                ),
                ("sub/Makefile", "D = ../tests\ntest:\n\tpytest -q $(D)\n"),
            ],
        ),
        (
            "an exported MAKEFILES",
            "make -B test",
            &[
                (
                    "Makefile",
                    "export MAKEFILES := $(CURDIR)/out/x.mk\ntest:\n\t$(MAKE) -C sub test\n",
                ),
                ("sub/Makefile", "test:\n\tpytest -q ../tests\n"),
            ],
        ),
        (
            "a rule remaking the makefile",
            "make -B test",
            &[(
                "Makefile",
                "Makefile: ; cd out && python3 -m pytest -q\ntest:\n\tpytest -q tests\n",
            )],
        ),
        (
            "make -f on the check line",
            "make -B -f Makefile test",
            &[("Makefile", "test:\n\tpytest -q out\n")],
        ),
        (
            "a recipe running a trial's script",
            "make -B test",
            &[("Makefile", "test:\n\tsh out/run.sh\n")],
        ),
        (
            "MAKE set to a trial's program",
            "make -B test",
            &[(
                "Makefile",
                "MAKE = $(CURDIR)/out/tool\ntest:\n\t$(MAKE) all\n",
            )],
        ),
    ];
    refused_each(&cases);
    let f = pytest_over_out("make -B test");
    write_files(
        &f,
        &[
            ("Makefile", "test:\n\t$(SHELL) scripts/test.sh\n"),
            ("scripts/test.sh", "pytest -q tests\n"),
        ],
    );
    check(&f).code(0);
}

/// Review 90 (helper-153, 44 attacks on review 89's fixes, each proved with GNU make 4.3): 30
/// more makefiles accepted whose recipes ran what a trial wrote, nearly all through the
/// recipe's shell, which gate read more loosely than the `check:` line: `then cd out`, `do cd
/// out`, `trap 'cd out'` (keywords and builtins kept as the command's name); `cd tests/../out`
/// and a link `results -> out` (the folder compared unresolved); a `cd` into a glob followed
/// by any program; `python3 -m out.grade`, `python3 -W ignore out/grade.py`; `sh <
/// out/run.sh`, `cat out/run.sh | sh`; globs and shell variables in a program, script or
/// folder (`sh o[u]t/run.sh`, `sh "$$PWD/out/run.sh"`, `git -C "$$PWD/out"`, `./o[u]t/ls`);
/// `PATH=$$PWD/out:$$PATH`; `hash -p out/ls ls`; `CDPATH`; `awk -f out/x.awk`, `sed -f
/// out/x.sed`, `perl $(wildcard out/*.pl)`; `test: ./setup` and `make ./test` (make files
/// `./x` as `x`); `sh -c "$$(… | base64 -d)"`; a here-document and a quote running over
/// `.ONESHELL` lines; an exported `TAR_OPTIONS` or `RUSTC_WRAPPER`. A recipe line is now read
/// with the shell's own structure and the check line's lists, its interpreters by the check
/// line's reader; each case is refused.
#[test]
fn rev90_a_recipe_is_read_as_strictly_as_the_check_line() {
    let submake = "check:\n\t@true\n";
    let cases: [MakeCase; 29] = [
        (
            "then cd",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tif true; then cd out; fi; $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "do cd",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tfor x in 1; do cd out; done; $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "trap cd",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\ttrap 'cd out' USR1; kill -USR1 $$$$; $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "dotdot into out",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tcd tests/../out && python3 -m json.tool </dev/null || true\n\tpytest -q tests\n",
            )],
        ),
        (
            "glob cd then a program",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tcd o[u]t && python3 -m json.tool </dev/null || true\n\tpytest -q tests\n",
            )],
        ),
        (
            "python -m out module",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tpython3 -m out.grade\n\tpytest -q tests\n",
            )],
        ),
        (
            "python -W value then script",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tpython3 -W ignore out/grade.py\n\tpytest -q tests\n",
            )],
        ),
        (
            "sh reads stdin",
            "make -B test",
            &[("Makefile", "test:\n\tsh < out/run.sh\n\tpytest -q tests\n")],
        ),
        (
            "cat piped into sh",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tcat out/run.sh | sh\n\tpytest -q tests\n",
            )],
        ),
        (
            "glob script",
            "make -B test",
            &[("Makefile", "test:\n\tsh o[u]t/run.sh\n\tpytest -q tests\n")],
        ),
        (
            "shell variable script",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tsh \"$$PWD/out/run.sh\"\n\tpytest -q tests\n",
            )],
        ),
        (
            "PATH from PWD",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tPATH=$$PWD/out:$$PATH ls >/dev/null\n\tpytest -q tests\n",
            )],
        ),
        (
            "hash -p",
            "make -B test",
            &[(
                "Makefile",
                "SHELL := /bin/bash\ntest:\n\thash -p out/ls ls; ls\n\tpytest -q tests\n",
            )],
        ),
        (
            "exported CDPATH",
            "make -B test",
            &[
                (
                    "Makefile",
                    "export CDPATH := $(CURDIR)/out\ntest:\n\tcd tests && $(MAKE) -s check\n",
                ),
                ("tests/Makefile", submake),
            ],
        ),
        (
            "a recipe's CDPATH",
            "make -B test",
            &[
                (
                    "Makefile",
                    "test:\n\tCDPATH=out; cd tests >/dev/null && $(MAKE) -s check\n",
                ),
                ("tests/Makefile", submake),
            ],
        ),
        (
            "git -C shell variable",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tgit -C \"$$PWD/out\" status -uno || true\n\tpytest -q tests\n",
            )],
        ),
        (
            "awk -f",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tawk -f out/x.awk </dev/null\n\tpytest -q tests\n",
            )],
        ),
        (
            "sed -f",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\techo x | sed -f out/x.sed\n\tpytest -q tests\n",
            )],
        ),
        (
            "dot a computed file",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\t. \"$$PWD/out/run.sh\"\n\tpytest -q tests\n",
            )],
        ),
        (
            "glob program",
            "make -B test",
            &[("Makefile", "test:\n\t./o[u]t/ls\n\tpytest -q tests\n")],
        ),
        (
            "dot-slash prerequisite",
            "make -B test",
            &[(
                "Makefile",
                "test: ./setup\n\tpytest -q tests\nsetup:\n\tsh out/run.sh\n",
            )],
        ),
        (
            "dot-slash goal",
            "make -B ./test",
            &[("Makefile", "test:\n\tsh out/run.sh\n\tpytest -q tests\n")],
        ),
        (
            "perl over a wildcard",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tperl $(wildcard out/*.pl) </dev/null\n\tpytest -q tests\n",
            )],
        ),
        (
            "sh -c of computed text",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tsh -c \"$$(echo Y2Qgb3V0ICYmIG1ha2UgLXMgY2hlY2sK | base64 -d)\"\ncheck:\n\t@true\n",
            )],
        ),
        (
            "a here-document under .ONESHELL",
            "make -B test",
            &[(
                "Makefile",
                ".ONESHELL:\ntest:\n\tcd out\n\t: <<:\n\tcd $(CURDIR)\n\t:\n\t$(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "a quote over .ONESHELL lines",
            "make -B test",
            &[(
                "Makefile",
                ".ONESHELL:\ntest:\n\tcd out\n\techo '\n\tcd $(CURDIR)\n\t'\n\t$(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
        (
            "exported TAR_OPTIONS",
            "make -B test",
            &[(
                "Makefile",
                "export TAR_OPTIONS := --checkpoint=1 --checkpoint-action=exec=out/x.sh\ntest:\n\ttar -cf /dev/null tests\n\tpytest -q tests\n",
            )],
        ),
        (
            "exported RUSTC_WRAPPER",
            "make -B test",
            &[(
                "Makefile",
                "export RUSTC_WRAPPER := $(CURDIR)/out/w\ntest:\n\tcargo build -q --offline\n\tpytest -q tests\n",
            )],
        ),
        (
            "a function",
            "make -B test",
            &[(
                "Makefile",
                "test:\n\tgo() { \"$$@\"; }; go cd out; $(MAKE) -s check\ncheck:\n\t@true\n",
            )],
        ),
    ];
    refused_each(&cases);
    // A link into `out`, entered by its own name.
    let f = pytest_over_out("make -B test");
    write_files(
        &f,
        &[(
            "Makefile",
            "test:\n\tcd results && python3 -m json.tool </dev/null || true\n\tpytest -q tests\n",
        )],
    );
    std::os::unix::fs::symlink("out", f.dir.path().join("results")).unwrap();
    check(&f).code(2);
    // What still reads: a `cd` into a folder the recipe makes, literal scripts and inline code
    // outside the folders the trials write, a quoted `if` and `$HOME` that are only text.
    let honest: [&[(&str, &str)]; 3] = [
        &[(
            "Makefile",
            "test:\n\tmkdir -p build && cd build && cmake --version >/dev/null\n\tpytest -q tests\n",
        )],
        &[(
            "Makefile",
            "test:\n\t@echo \"if this fails, see $$HOME/log\"\n\tpython3 -c \"import sys; print(sys.version_info[1])\"\n\tpytest -q tests\n",
        )],
        &[(
            "Makefile",
            "test:\n\tsh graders/prep.sh && pytest -q tests\n",
        )],
    ];
    for files in honest {
        let f = pytest_over_out("make -B test");
        write_files(&f, files);
        write_files(&f, &[("graders/prep.sh", "true\n")]);
        let out = check(&f).get_output().clone();
        assert_eq!(out.status.code(), Some(0), "{files:?}: {}", both(&out));
    }
}
