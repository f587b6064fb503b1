//! Issue 18's breaks outside the box: a task that swaps gate's report paths while it runs, an
//! orphan of a killed run that writes its result file late, and the report preflight shared
//! by `run`, `ingest` and `report` (issue 15). Each test is named after the break it pins.

use std::os::unix::fs::MetadataExt;
use std::process::Stdio;
use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::common::*;
use gate::ledger::Ledger;

/// A plan of one trial that waits, while it runs, until `swap` (a shell command run in the
/// plan's folder) has replaced a report path, then passes. The test runs the swap, standing
/// for the task: a sandboxed task may not be able to, and gate's write-time checks must hold
/// either way.
struct Swap {
    f: Fixture,
    swap: String,
}

fn swapping(swap: &str) -> Swap {
    let f = Fixture::new(
        // The box off: these tests pin the write-time checks behind it (the trial marks
        // itself beside the plan, which the box would refuse).
        "version: 1\nsampling: {single: {n: 1, c: 0}}\npolicy: {sandbox: off}\ntasks:\n  - id: t\n    timeout: 60s\n    run: 'touch started; while [ ! -e swapped ]; do sleep 0.02; done'\n",
    );
    std::fs::create_dir_all(f.path("reports")).unwrap();
    std::fs::write(f.path("step.md"), "").unwrap();
    Swap {
        f,
        swap: swap.to_string(),
    }
}

fn mkfifo(path: &std::path::Path) {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

/// Run gate with every report asked for and `$GITHUB_STEP_SUMMARY` at `step.md`, swap a path
/// while the trial runs; the attack must be refused at write time (exit 4, one line saying
/// why, no verdict printed), quickly, with nothing written through the swapped path.
fn refused_at_write_time(s: &Swap, why: &str) {
    let f = &s.f;
    let plan_before = read(&f.plan());
    let started = Instant::now();
    let out = std::fs::File::create(f.path("gate.out")).unwrap();
    let err = std::fs::File::create(f.path("gate.err")).unwrap();
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
        .current_dir(f.dir.path())
        .args(["run", "plan.yaml", "--ledger", "out/ledger.jsonl"])
        .args(["--json", "reports/r.json", "--junit", "reports/r.xml"])
        .args(["--summary", "reports/s.md"])
        .env_remove("GITHUB_ACTIONS")
        .env("GITHUB_STEP_SUMMARY", f.path("step.md"))
        .stdout(out)
        .stderr(err)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while !f.path("started").exists() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(f.path("started").exists(), "the trial started");
    let swapped = std::process::Command::new("sh")
        .args(["-c", &s.swap])
        .current_dir(f.dir.path())
        .status()
        .unwrap();
    assert!(swapped.success(), "the swap `{}` ran", s.swap);
    std::fs::write(f.path("swapped"), "").unwrap();
    let code = loop {
        if let Some(st) = child.try_wait().unwrap() {
            break st.code();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("gate blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let stdout = read(&f.path("gate.out"));
    let stderr = read(&f.path("gate.err"));
    assert_eq!(code, Some(4), "{stdout}\n{stderr}");
    assert!(!stdout.contains("gate  PASS"), "{stdout}");
    assert!(stderr.contains(why), "{stderr}");
    assert!(
        stderr.contains(
            "since the run started, so no report is written there and no verdict is published"
        ),
        "{stderr}"
    );
    assert!(started.elapsed() < Duration::from_secs(30), "gate blocked");
    assert_eq!(read(&f.plan()), plan_before, "the plan is untouched");
    gate()
        .args(["verify"])
        .arg(f.ledger_path())
        .assert()
        .code(0);
    for report in ["reports/r.json", "reports/r.xml", "reports/s.md"] {
        let p = f.path(report);
        let ledger = std::fs::metadata(f.ledger_path()).unwrap();
        let written = std::fs::symlink_metadata(&p)
            .is_ok_and(|m| m.is_file() && m.len() > 0 && m.ino() != ledger.ino());
        assert!(!written, "{report} was written");
    }
}

/// Break 2: `--json` replaced by a symlink to the plan made gate overwrite the plan.
#[test]
fn json_report_swapped_for_a_symlink_to_the_plan_is_refused_at_write_time() {
    let s = swapping("ln -s ../plan.yaml reports/r.json");
    refused_at_write_time(&s, "`--json reports/r.json`: it became a symbolic link");
}

/// Break 2: `--junit` replaced by a symlink to the ledger.
#[test]
fn junit_report_swapped_for_a_symlink_to_the_ledger_is_refused_at_write_time() {
    let s = swapping("ln -s ../out/ledger.jsonl reports/r.xml");
    refused_at_write_time(&s, "`--junit reports/r.xml`: it became a symbolic link");
}

/// Break 2: `--json` replaced by a hard link to the ledger (another name of the same file).
#[test]
fn json_report_swapped_for_a_hard_link_to_the_ledger_is_refused_at_write_time() {
    let s = swapping("ln out/ledger.jsonl reports/r.json");
    refused_at_write_time(&s, "it became another name of --ledger");
}

/// Break 2: `--summary` replaced by a FIFO made gate print its verdict and block forever.
#[test]
fn summary_report_swapped_for_a_fifo_is_refused_without_blocking() {
    let s = swapping("mkfifo reports/s.md");
    refused_at_write_time(&s, "`--summary reports/s.md`: it became a FIFO");
}

/// Break 2: `$GITHUB_STEP_SUMMARY` replaced by a symlink to the ledger made gate append
/// Markdown to the ledger (exit 0, then `gate verify` failed).
#[test]
fn step_summary_swapped_for_a_symlink_to_the_ledger_is_refused_at_write_time() {
    let s = swapping("rm step.md && ln -s out/ledger.jsonl step.md");
    refused_at_write_time(&s, "step.md`: it became a symbolic link");
}

/// Break 2: `$GITHUB_STEP_SUMMARY` replaced by a FIFO (no reader: an append would block).
#[test]
fn step_summary_swapped_for_a_fifo_is_refused_without_blocking() {
    let s = swapping("rm step.md && mkfifo step.md");
    refused_at_write_time(&s, "step.md`: it became a FIFO");
}

/// Break 2: the report folder renamed and replaced by a symlink to another folder made gate
/// write its reports there (`/etc` in the finding).
#[test]
fn report_folder_swapped_for_a_symlink_is_refused_at_write_time() {
    let s = swapping("mv reports moved && mkdir elsewhere && ln -s elsewhere reports");
    refused_at_write_time(&s, "its folder `reports` was moved or replaced");
    let f = &s.f;
    assert_eq!(std::fs::read_dir(f.path("elsewhere")).unwrap().count(), 0);
    assert_eq!(std::fs::read_dir(f.path("moved")).unwrap().count(), 0);
}

/// A FIFO at a report's name before the run is refused at once, as before the fix.
#[test]
fn a_fifo_at_a_report_name_is_refused_before_any_trial() {
    let f = swapping("true").f;
    // Nothing is swapped: the trial need not wait.
    std::fs::write(f.path("swapped"), "").unwrap();
    mkfifo(&f.path("reports/r.json"));
    f.run(&["--json", "reports/r.json"])
        .code(2)
        .stderr(predicate::str::contains("is a FIFO"));
    assert!(!f.ledger_path().exists());
}

/// The reports are written in full when nothing was tampered with, and a symlink at a
/// report's name at the start is refused before any trial runs.
#[test]
fn untampered_reports_are_written_and_a_symlinked_report_name_is_refused_up_front() {
    let f = swapping("true").f;
    // Nothing is swapped: the trial need not wait.
    std::fs::write(f.path("swapped"), "").unwrap();
    f.run(&["--json", "reports/r.json", "--junit", "reports/r.xml"])
        .code(0);
    assert!(read(&f.path("reports/r.json")).contains("\"verdict\""));
    assert!(read(&f.path("reports/r.xml")).starts_with("<?xml"));
    let left: Vec<_> = std::fs::read_dir(f.path("reports"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(left.len(), 2, "no temporary file is left behind: {left:?}");
    std::os::unix::fs::symlink("../plan.yaml", f.path("reports/link.json")).unwrap();
    f.run(&["--json", "reports/link.json"])
        .code(2)
        .stderr(predicate::str::contains("is a symbolic link"));
}

/// Regression (issue 15): `gate ingest … --json LEDGER.lock` exited 3 and overwrote the lock
/// file with the report, where `gate run` refused the same flags (exit 2): the report-path
/// checks were written three times. `run`, `ingest` and `report` share one preflight now.
#[test]
fn ingest_json_over_the_ledger_lock_is_refused_like_run() {
    let f = swapping("true").f;
    // Nothing is swapped: the trial need not wait.
    std::fs::write(f.path("swapped"), "").unwrap();
    let junit = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/junit/playwright-no-retries.xml");
    let junit = junit.to_str().unwrap();
    let ingest = |extra: &[&str]| {
        gate()
            .current_dir(f.dir.path())
            .args(["ingest", "--single", "5,1", "--assume-retries-off", junit])
            .args(["--ledger", "out/ledger.jsonl", "--no-step-summary"])
            .args(extra)
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
    };
    for flag in ["--json", "--junit", "--summary"] {
        ingest(&[flag, "out/ledger.jsonl.lock"])
            .code(2)
            .stderr(predicate::str::contains(
                "the ledger's lock file name the same file",
            ));
        f.run(&[flag, "out/ledger.jsonl.lock"])
            .code(2)
            .stderr(predicate::str::contains(
                "the ledger's lock file name the same file",
            ));
    }
    assert!(
        !f.ledger_path().exists(),
        "refused before anything was written"
    );
    // A report over the plan given to ingest, or over one of its inputs, is refused too.
    ingest(&["--json", junit])
        .code(2)
        .stderr(predicate::str::contains("a result file name the same file"));
    ingest(&[]).code(predicate::ne(2));
    gate()
        .current_dir(f.dir.path())
        .args([
            "report",
            "out/ledger.jsonl",
            "--json",
            "out/ledger.jsonl.lock",
        ])
        .args(["--no-step-summary"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "the ledger's lock file name the same file",
        ));
}

/// Break 5: after a SIGKILL, a trial of the old process (its group survives gate) wrote its
/// result file late, at the path the resumed run's same trial then was graded on (the run
/// id, hence the path, was reused). The resumed trial is graded on its own result only.
#[test]
fn a_resumed_trial_is_never_graded_on_an_orphans_late_result_file() {
    // First session: the trial leaves a background process that waits, then writes a passing
    // result, and marks itself (gate's death signal kills only a trial's first process, so a
    // process the task starts itself outlives the SIGKILL; its stderr goes nowhere, since a
    // message to the dead gate's pipe would end it). Resumed session: the trial writes a
    // failing result and keeps running past the orphan's write.
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\npolicy: {sandbox: off}\ntasks:\n  - id: t\n    timeout: 60s\n    run: 'if [ ! -e first ]; then (sleep 2; printf \"{\\\"pass\\\": true}\" > \"$GATE_RESULT\"; touch orphan-wrote) 2>/dev/null & touch first; wait; exit 0; fi; printf \"{\\\"pass\\\": false}\" > \"$GATE_RESULT\"; sleep 4; exit 0'\n",
    );
    let mut first = std::process::Command::new(assert_cmd::cargo::cargo_bin("gate"))
        .current_dir(f.dir.path())
        .args(["run", "plan.yaml", "--ledger", "out/ledger.jsonl"])
        .args(["--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let marked = || f.path("first").exists();
    let end = Instant::now() + Duration::from_secs(20);
    while !marked() && Instant::now() < end {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(marked(), "the first trial started");
    // SAFETY: a signal to our own child.
    unsafe { libc::kill(first.id() as i32, libc::SIGKILL) };
    let _ = first.wait();
    gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/ledger.jsonl",
            "--resume",
        ])
        .args(["--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .timeout(Duration::from_secs(60))
        .assert()
        .code(1);
    assert!(
        f.path("orphan-wrote").exists(),
        "the orphan wrote its late result while the resumed trial ran"
    );
    let l = f.ledger();
    let graded: Vec<_> = attempts(&l).into_iter().filter(|a| a.graded).collect();
    assert_eq!(graded.len(), 1);
    assert_eq!(
        graded[0].detail.result.as_ref().and_then(|r| r.pass),
        Some(false)
    );
}

/// Break 6: re-running one failing shard until it passed ("Re-run failed jobs") and merging
/// its passing ledger with the other shards' first attempt gave PASS; nothing recorded that
/// the shard ran twice. Shard ledgers carry the CI run's identity, and `gate report` merges
/// only the shards of one attempt of one run.
#[test]
fn a_shard_re_run_alone_is_refused_by_the_merge() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 4, c: 0}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    let shard = |k: u32, attempt: &str| {
        gate()
            .current_dir(f.dir.path())
            .args(["run", "plan.yaml", "--no-step-summary", "--shard"])
            .arg(format!("{k}/2"))
            .arg("--ledger")
            .arg(format!("s{k}-a{attempt}/ledger.jsonl"))
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .env("GITHUB_RUN_ID", "4242")
            .env("GITHUB_RUN_ATTEMPT", attempt)
            .env("GITHUB_JOB", "shard")
            .assert()
            .code(0);
    };
    shard(1, "1");
    shard(2, "1");
    shard(2, "2");
    shard(1, "2");
    let l = Ledger::read(&f.path("s2-a2/ledger.jsonl")).unwrap();
    let ci = l.header().ci.clone().expect("the CI run is recorded");
    assert_eq!((ci.run_id.as_str(), ci.run_attempt.as_str()), ("4242", "2"));
    assert_eq!(ci.job, "shard");
    let report = |ledgers: &[&str]| {
        gate()
            .current_dir(f.dir.path())
            .arg("report")
            .args(ledgers)
            .arg("--no-step-summary")
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
    };
    report(&["s1-a1/ledger.jsonl", "s2-a2/ledger.jsonl"])
        .code(2)
        .stderr(predicate::str::contains(
            "ran in attempt 1 of CI run 4242 but `s2-a2/ledger.jsonl` (shard 2/2) ran in attempt 2",
        ))
        .stderr(predicate::str::contains(
            "re-run all jobs of the workflow run",
        ));
    // The first attempt of every shard, or every shard of the second attempt, merges.
    report(&["s1-a1/ledger.jsonl", "s2-a1/ledger.jsonl"]).code(0);
    report(&["s1-a2/ledger.jsonl", "s2-a2/ledger.jsonl"]).code(0);
}

/// `gate init` in a project with these files (a FIFO where the text is `None`).
fn hostile_project(files: &[(&str, Option<&str>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        match text {
            Some(t) => std::fs::write(&p, t).unwrap(),
            None => mkfifo(&p),
        }
    }
    dir
}

fn init_quickly(dir: &std::path::Path) -> assert_cmd::assert::Assert {
    let started = Instant::now();
    let a = gate()
        .current_dir(dir)
        .arg("init")
        .timeout(Duration::from_secs(60))
        .assert();
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "gate init hung"
    );
    a
}

/// Break 7: `gate init` ran `python3 -c 'import pytest'` with the project on `sys.path`, so
/// the repository's own `pytest.py` ran. Init never executes project code.
#[test]
fn init_never_runs_the_projects_own_pytest_py() {
    let marker = tempfile::tempdir().unwrap();
    let hit = marker.path().join("ran");
    let dir = hostile_project(&[
        (
            "pytest.py",
            Some(&format!(
                "open({:?}, 'w').write('x')\n",
                hit.to_str().unwrap()
            )),
        ),
        ("tests/test_a.py", Some("def test_one():\n    pass\n")),
    ]);
    init_quickly(dir.path()).success();
    assert!(!hit.exists(), "the project's pytest.py was executed");
}

/// Break 7: a `pyproject.toml` linked to `/dev/zero` was read until memory ran out.
#[test]
fn init_bounds_a_pyproject_linked_to_dev_zero() {
    let dir = hostile_project(&[("tests/test_a.py", Some("def test_one():\n    pass\n"))]);
    std::os::unix::fs::symlink("/dev/zero", dir.path().join("pyproject.toml")).unwrap();
    init_quickly(dir.path())
        .success()
        .stdout(predicate::str::contains("pytest project"));
}

/// Break 7: a FIFO named `pyproject.toml` (or a test file) hung `gate init` forever.
#[test]
fn init_does_not_hang_on_a_fifo_named_pyproject_toml() {
    let dir = hostile_project(&[
        ("pyproject.toml", None),
        ("tests/test_a.py", Some("def test_one():\n    pass\n")),
    ]);
    init_quickly(dir.path())
        .success()
        .stdout(predicate::str::contains("pytest project"));
}

/// Break 8: an empty test id became a task with an empty name. It is refused, naming why.
#[test]
fn ingest_refuses_a_test_case_without_a_visible_name() {
    let d = tempfile::tempdir().unwrap();
    for (i, name) in ["", "\u{202e}\u{200b} "].iter().enumerate() {
        let xml = d.path().join(format!("r{i}.xml"));
        std::fs::write(
            &xml,
            format!(
                "<testsuites><testsuite name=\"s\" tests=\"2\"><testcase name=\"ok\" classname=\"c\"/><testcase name=\"{name}\"/></testsuite></testsuites>"
            ),
        )
        .unwrap();
        gate()
            .current_dir(d.path())
            .args(["ingest", "--single", "1,0", "--assume-retries-off"])
            .arg(&xml)
            .args(["--ledger", "out/ledger.jsonl", "--no-step-summary"])
            .env_remove("GITHUB_ACTIONS")
            .env_remove("GITHUB_STEP_SUMMARY")
            .assert()
            .code(2)
            .stderr(predicate::str::contains("has no visible name"))
            .stderr(predicate::str::contains("\u{202e}").not());
    }
}

/// Break 8: bidi controls (U+202E) and U+2028 from a task were printed raw in the terminal
/// and the summary, where they reorder or break what a reader sees.
#[test]
fn bidi_controls_and_line_separators_from_a_task_are_shown_escaped() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: |\n      printf '{\"pass\": false, \"note\": \"ok \\u202eSSAP\\u2028next \\u2066x\\u2069\"}' > \"$GATE_RESULT\"\n      printf 'out \\342\\200\\256 tail\\n'\n",
    );
    let out = f.command(&["--summary", "s.md"]).assert().code(1);
    let shown = String::from_utf8_lossy(&out.get_output().stdout).into_owned()
        + &String::from_utf8_lossy(&out.get_output().stderr)
        + &read(&f.path("s.md"));
    for c in ['\u{202e}', '\u{2028}', '\u{2066}', '\u{2069}'] {
        assert!(
            !shown.contains(c),
            "U+{:04X} printed raw:\n{shown}",
            c as u32
        );
    }
    assert!(shown.contains("\\u{202e}"), "{shown}");
}

/// Break 8: a secret is redacted verbatim (and, since issue 29, in its base64 and hex forms);
/// a spaced-out copy passes. docs/trust.md says so, and this pins the documented limit (if
/// redaction grows, the docs must change too).
#[test]
fn a_secret_is_redacted_only_verbatim_as_the_trust_model_documents() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 1, c: 0}}\ntasks:\n  - id: t\n    run: |\n      echo \"plain $DB_PASSWORD\"\n      echo \"$DB_PASSWORD\" | sed 's/./& /g'\n      exit 1\n    env: {DB_PASSWORD: \"correct-horse\"}\n",
    );
    f.command(&[]).assert().code(1);
    let ledger = read(&f.ledger_path());
    assert!(ledger.contains("plain ***"), "{ledger}");
    assert!(!ledger.contains("correct-horse"), "{ledger}");
    assert!(ledger.contains("c o r r e c t - h o r s e"), "{ledger}");
    let trust = read(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/trust.md"));
    assert!(trust.contains("spaced out, one character per line, in another case"));
}

#[test]
fn plan_svg_over_a_fifo_a_symlink_or_the_plan_is_refused_by_the_report_preflight() {
    // `gate plan --svg PATH` wrote with `std::fs::write`: a FIFO at PATH blocked it forever,
    // a symlink wrote through to its target. It now goes through the one report preflight.
    let d = tempfile::tempdir().unwrap();
    mkfifo(&d.path().join("fifo.svg"));
    std::fs::write(d.path().join("target.txt"), "keep").unwrap();
    std::os::unix::fs::symlink(d.path().join("target.txt"), d.path().join("link.svg")).unwrap();
    for (name, why) in [
        ("fifo.svg", "is a FIFO, not a regular file"),
        ("link.svg", "is a symbolic link"),
    ] {
        gate()
            .current_dir(d.path())
            .args([
                "plan",
                "--healthy",
                "0.9",
                "--regressed",
                "0.7",
                "--svg",
                name,
            ])
            .timeout(std::time::Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(why));
    }
    assert_eq!(read(&d.path().join("target.txt")), "keep");
    gate()
        .current_dir(d.path())
        .args([
            "plan",
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--svg",
            "oc.svg",
        ])
        .assert()
        .code(0);
    assert!(read(&d.path().join("oc.svg")).starts_with("<svg"));
}

/// Issue 29, review V1: a FAIL ledger cut after an attempt row (as a crash leaves it) whose
/// last row is flipped to a pass broke no hash (nothing covers the last row): `gate verify`
/// said ok and `gate report` published PASS, exit 0. Now verify names the uncovered row and
/// exits 1, report leaves the row out (INCONCLUSIVE, exit 3), and a resumed run still
/// completes the real cut ledger.
#[test]
fn crash_cut_ledger_with_its_last_row_flipped_to_pass_publishes_no_pass() {
    // Trial 1 passes, trial 2 fails: FAIL under (n 2, c 0).
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 2, c: 0}}\ntasks:\n  - id: agent\n    run: 'test \"$GATE_TRIAL\" = 1'\n",
    );
    gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "--ledger",
            "out/l.jsonl",
        ])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(1);
    let text = read(&f.path("out/l.jsonl"));
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[2].contains("\"trial\":2") && lines[2].contains("\"outcome\":\"fail\""));
    // The crash: header and two attempt rows. The forgery: the last one made a pass.
    let cut = lines[..3].join("\n") + "\n";
    let forged = cut
        .replace("\"outcome\":\"fail\"", "\"outcome\":\"pass\"")
        .replace("\"exit_code\":1", "\"exit_code\":0");
    std::fs::write(f.path("out/forged.jsonl"), &forged).unwrap();
    std::fs::write(f.path("out/cut.jsonl"), &cut).unwrap();

    gate()
        .current_dir(f.dir.path())
        .args(["verify", "out/forged.jsonl"])
        .assert()
        .code(1)
        .stderr(predicate::str::contains(
            "out/forged.jsonl:3: not closed, last row not covered",
        ));
    let out = gate()
        .current_dir(f.dir.path())
        .args(["report", "--no-step-summary", "out/forged.jsonl"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(3), "{stdout}");
    assert!(!stdout.contains("PASS"), "{stdout}");
    assert!(stdout.contains("gate  INCONCLUSIVE"), "{stdout}");
    assert!(
        stdout.contains("out/forged.jsonl:3: not closed (no footer)")
            && stdout.contains("gate run --resume"),
        "{stdout}"
    );

    // The honest cut ledger resumes to its real verdict, and then verifies.
    gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "--resume",
            "--ledger",
            "out/cut.jsonl",
        ])
        .env_remove("GITHUB_ACTIONS")
        .assert()
        .code(1);
    gate()
        .current_dir(f.dir.path())
        .args(["verify", "out/cut.jsonl"])
        .assert()
        .code(0);
}
