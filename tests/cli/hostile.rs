//! The task under test as an adversary (docs/trust.md): hostile result files, output floods,
//! text that tries to act as a workflow command or a Markdown link, absurd inputs.
//! Each test is named after the finding it pins.

use std::time::{Duration, Instant};

use predicates::prelude::*;

use crate::common::*;

fn one_trial(run: &str) -> Fixture {
    Fixture::new(&format!(
        "version: 1\nsampling: {{single: {{n: 1, c: 0}}}}\ntasks:\n  - id: t\n    timeout: 60s\n    run: '{run}'\n"
    ))
}

fn only_reason(f: &Fixture) -> String {
    let l = f.ledger();
    attempts(&l)[0].detail.reason.clone().unwrap_or_default()
}

/// Regression: a FIFO at `$GATE_RESULT` hung gate for minutes (a blocking open/read).
#[test]
fn result_file_fifo_is_a_harness_error_quickly() {
    let f = one_trial(r#"mkfifo "$GATE_RESULT""#);
    let started = Instant::now();
    f.run(&[]).code(4);
    assert!(started.elapsed() < Duration::from_secs(30));
    assert!(only_reason(&f).contains("is a FIFO"), "{}", only_reason(&f));
}

/// Regression: a symlink to `/dev/zero` at `$GATE_RESULT` read until memory ran out.
#[test]
fn result_file_symlink_to_dev_zero_is_bounded() {
    let f = one_trial(r#"ln -s /dev/zero "$GATE_RESULT""#);
    f.run(&[]).code(4);
    assert!(
        only_reason(&f).contains("is a symbolic link"),
        "{}",
        only_reason(&f)
    );
}

/// A result file above the size cap is refused, not read.
#[test]
fn result_file_oversized_is_a_harness_error() {
    let f = one_trial(r#"head -c 2000000 /dev/zero | tr "\\0" " " > "$GATE_RESULT""#);
    f.run(&[]).code(4);
    assert!(
        only_reason(&f).contains("larger than 1048576 bytes"),
        "{}",
        only_reason(&f)
    );
}

/// Issue 11: an unknown key is a warning kept in the ledger, not a harness error.
#[test]
fn unknown_result_key_is_a_warning_kept_in_the_ledger() {
    let f = one_trial(r#"printf "{\"pass\": true, \"reasoning\": \"x\"}" > "$GATE_RESULT""#);
    f.run(&[])
        .code(0)
        .stderr(predicate::str::contains("unknown key `reasoning`"));
    let l = f.ledger();
    let r = attempts(&l)[0].detail.result.clone().unwrap();
    assert_eq!(r.ignored_keys, vec!["reasoning".to_string()]);
    let w = r.warning.unwrap();
    assert!(w.contains("allowed: `pass`"), "{w}");
}

/// Regression: 600 MB of stdout cost 600 MB of disk (or shared memory) while the trial ran.
/// The log keeps the head and the tail; the middle is counted, never stored.
#[test]
fn stdout_flood_is_bounded_on_disk() {
    let f = one_trial(r#"head -c 50000000 /dev/zero | tr "\\0" x; echo; echo the-end"#);
    f.run(&[]).code(0);
    let l = f.ledger();
    let a = &attempts(&l)[0];
    assert!(
        a.detail.stdout_tail.ends_with("the-end"),
        "{:?}",
        a.detail.stdout_tail
    );
    let log = std::fs::metadata(a.detail.log.as_ref().unwrap()).unwrap();
    assert!(log.len() < 300 * 1024, "log is {} bytes", log.len());
    let text = read(std::path::Path::new(a.detail.log.as_ref().unwrap()));
    assert!(text.contains("bytes of output elided by gate"));
}

/// Logs and the folders that hold them are private to the user (0600 in 0700).
#[test]
fn logs_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let f = one_trial("echo hello");
    f.run(&[]).code(0);
    let l = f.ledger();
    let log = std::path::PathBuf::from(attempts(&l)[0].detail.log.clone().unwrap());
    let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&log), 0o600);
    assert_eq!(mode(log.parent().unwrap()), 0o700);
}

/// A task's long note is clipped to a stated size in the ledger.
#[test]
fn long_note_is_clipped_in_the_ledger() {
    let f = one_trial(
        r#"printf "{\"pass\": true, \"note\": \"%s\"}" "$(head -c 100000 /dev/zero | tr "\\0" n)" > "$GATE_RESULT""#,
    );
    f.run(&[]).code(0);
    let l = f.ledger();
    let note = attempts(&l)[0].detail.result.clone().unwrap().note.unwrap();
    assert!(
        note.len() <= gate::untrusted::MAX_NOTE_BYTES + 3,
        "{}",
        note.len()
    );
    assert!(note.ends_with('…'));
}

/// Regression: `--shard 1/18446744073709551615` allocated until the OOM killer and
/// `1/100000000` aborted; a shard count is now capped and refused in milliseconds.
#[test]
fn huge_shard_count_is_refused_fast() {
    let f = one_trial("true");
    for (shard, says) in [
        (
            "1/18446744073709551615",
            "more than the 10000 gate supports",
        ),
        ("1/100000000", "more than the 10000 gate supports"),
        ("1/2", "more shards than trials"),
    ] {
        f.command(&["--shard", shard])
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(says));
    }
    assert!(!f.ledger_path().exists(), "no run started");
}

/// Regression: a ledger header naming such a shard aborted `verify` and `report`.
#[test]
fn ledger_header_with_a_huge_shard_is_refused() {
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 4, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n",
    );
    f.run(&["--shard", "1/2"]).code(0);
    let text = read(&f.ledger_path());
    let forged = text.replacen("\"m\":2", "\"m\":18446744073709551615", 1);
    assert_ne!(text, forged);
    std::fs::write(f.ledger_path(), forged).unwrap();
    for sub in ["verify", "report"] {
        gate()
            .current_dir(f.dir.path())
            .args([sub, "out/ledger.jsonl"])
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicate::str::contains(
                "more than the 10000 gate supports",
            ));
    }
}

/// Regression: `--json` could overwrite the ledger. Report paths that resolve to the ledger,
/// the plan or each other are refused before the first trial.
#[test]
fn json_report_path_equal_to_ledger_is_refused() {
    // Trials may create files only in subfolders of the plan's folder (the box).
    let f = one_trial("touch work/ran");
    std::fs::create_dir(f.path("work")).unwrap();
    for args in [
        &["--json", "out/ledger.jsonl"][..],
        &["--json", "./out/../out/ledger.jsonl"],
        &["--junit", "plan.yaml"],
        &["--json", "r.json", "--summary", "./r.json"],
    ] {
        f.run(args)
            .code(2)
            .stderr(predicate::str::contains("name the same file"));
    }
    assert!(!f.path("work/ran").exists(), "no trial ran");
    f.run(&[]).code(0);
    let before = read(&f.ledger_path());
    gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl", "--json", "out/ledger.jsonl"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("name the same file"));
    assert_eq!(read(&f.ledger_path()), before, "the ledger is untouched");
}

/// Regression (review of issue 8): a report path that is a hard link to the ledger (or the
/// plan) resolves to another name, so the path comparison let `--json` overwrite the ledger
/// with its own report (exit 0, the evidence gone). Files are compared by device and inode.
#[test]
fn a_report_path_hard_linked_to_the_ledger_is_refused() {
    // Trials may create files only in subfolders of the plan's folder (the box).
    let f = one_trial("touch work/ran");
    std::fs::create_dir(f.path("work")).unwrap();
    std::fs::create_dir_all(f.path("out")).unwrap();
    std::fs::write(f.ledger_path(), "").unwrap();
    std::fs::hard_link(f.ledger_path(), f.path("out/hard.json")).unwrap();
    std::fs::hard_link(f.plan(), f.path("plan-link.xml")).unwrap();
    for args in [
        &["--json", "out/hard.json"][..],
        &["--junit", "plan-link.xml"],
    ] {
        f.run(args)
            .code(2)
            .stderr(predicate::str::contains("name the same file"));
    }
    assert!(!f.path("work/ran").exists(), "no trial ran");
    std::fs::remove_file(f.path("out/hard.json")).unwrap();
    f.run(&[]).code(0);
    std::fs::hard_link(f.ledger_path(), f.path("out/hard.json")).unwrap();
    let before = read(&f.ledger_path());
    gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl", "--json", "out/hard.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("name the same file"));
    assert_eq!(read(&f.ledger_path()), before, "the ledger is untouched");
}

/// Regression: `$GITHUB_STEP_SUMMARY` naming the ledger was left out of the path checks
/// whenever `--summary` was given (and always in `report` and `ingest`), so the Markdown was
/// appended to the ledger after it was verified: exit 0, and a ledger that no longer reads.
#[test]
fn a_step_summary_naming_the_ledger_is_refused_by_run_report_and_ingest() {
    // Trials may create files only in subfolders of the plan's folder (the box).
    let f = one_trial("touch work/ran");
    std::fs::create_dir(f.path("work")).unwrap();
    let ledger = f.ledger_path();
    let refused = |args: &[&str], what: &str| {
        gate()
            .current_dir(f.dir.path())
            .args(args)
            .env_remove("GITHUB_ACTIONS")
            .env("GITHUB_STEP_SUMMARY", &ledger)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(what));
    };
    let run = [
        "run",
        "plan.yaml",
        "--ledger",
        "out/ledger.jsonl",
        "--summary",
        "s.md",
    ];
    refused(&run, "$GITHUB_STEP_SUMMARY name the same file");
    assert!(!f.path("work/ran").exists(), "no trial ran");
    f.run(&[]).code(0);
    let before = read(&ledger);
    let report = ["report", "out/ledger.jsonl", "--summary", "s.md"];
    refused(
        &report,
        "$GITHUB_STEP_SUMMARY and a ledger given name the same file",
    );
    let junit = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/junit/playwright-no-retries.xml");
    let junit = junit.to_str().unwrap();
    let ingest = ["ingest", "--single", "5,1", "--assume-retries-off", junit];
    let ingest = [&ingest[..], &["--ledger", "out/ledger.jsonl"]].concat();
    refused(
        &ingest,
        "--ledger and $GITHUB_STEP_SUMMARY name the same file",
    );
    assert_eq!(read(&ledger), before, "the ledger is untouched");
}

/// A plan, ledger or report path that is a FIFO or a device is refused at once.
#[test]
fn fifo_and_device_paths_are_refused() {
    let f = one_trial("true");
    let fifo = f.path("fifo.yaml");
    let c = std::ffi::CString::new(fifo.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path and a mode.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    gate()
        .current_dir(f.dir.path())
        .args(["run", "fifo.yaml", "--no-step-summary"])
        .timeout(Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a FIFO"));
    for sub in ["verify", "report"] {
        gate()
            .current_dir(f.dir.path())
            .args([sub, "fifo.yaml"])
            .timeout(Duration::from_secs(20))
            .assert()
            .code(2)
            .stderr(predicate::str::contains("is a FIFO"));
    }
    gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--no-step-summary",
            "--ledger",
            "fifo.yaml",
        ])
        .timeout(Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("is a FIFO"));
    f.command(&["--json", "/dev/null"])
        .timeout(Duration::from_secs(20))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("character device"));
}

/// Policy values and task fields that could make a run endless, huge or fail late are
/// refused at load time with their location (exit 2).
#[test]
fn absurd_policy_bounds_are_refused_at_load() {
    let task = "tasks:\n  - id: t\n    run: 'true'\n";
    let long_id = "x".repeat(200);
    let cases: Vec<(String, &str)> = vec![
        (format!("version: 1\nsampling: {{single: {{n: 5, c: 1}}}}\n{task}policy: {{kill_grace: 11m}}\n"), "`policy.kill_grace` must be at most 600s"),
        (format!("version: 1\nsampling: {{single: {{n: 5, c: 1}}}}\n{task}policy: {{jobs: 5000}}\n"), "`policy.jobs` must be at most 1024"),
        (format!("version: 1\nsampling: {{single: {{n: 5, c: 1}}}}\n{task}policy: {{max_unavailable: 6}}\n"), "more than the task's trial budget (5)"),
        (format!("version: 1\nsampling: {{single: {{n: 5, c: 1}}}}\n{task}policy: {{transport: {{exit_codes: [0]}}}}\n"), "`0` is not an exit code"),
        (format!("version: 1\nsampling: {{single: {{n: 5, c: 1}}}}\n{task}policy: {{transport: {{exit_codes: [256]}}}}\n"), "`256` is not an exit code"),
        (format!("version: \"1\"\nsampling: {{single: {{n: 5, c: 1}}}}\n{task}"), "plan.yaml:1:10: `version` must be the integer `1`"),
        (format!("version: +1\nsampling: {{single: {{n: 5, c: 1}}}}\n{task}"), "`version` must be the integer `1`, got `+1`"),
        ("version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: 'true'\n    env: {A-B: x}\n".to_string(), "`env` key `A-B` is not a valid variable name"),
        ("version: 1\nsampling: {single: {n: 5, c: 1}}\ntasks:\n  - id: t\n    run: [\"echo\", \"a\\0b\"]\n".to_string(), "contains a NUL byte"),
        (format!("version: 1\nsampling: {{single: {{n: 5, c: 1}}}}\ntasks:\n  - id: {long_id}\n    run: 'true'\n"), "ids are at most 128 bytes"),
    ];
    for (yaml, says) in cases {
        let f = Fixture::new(&yaml);
        f.run(&[]).code(2).stderr(predicate::str::contains(says));
    }
    let f = one_trial("true");
    f.run(&["--jobs", "100000"])
        .code(2)
        .stderr(predicate::str::contains("`--jobs` must be at most 1024"));
}

/// Regression: a re-chained forgery (a FAIL's decision and footer rewritten as PASS, the hash
/// chain rebuilt) made `gate report` publish PASS with exit 0.
#[test]
fn forged_decision_rows_make_report_fail() {
    use gate::ledger::{LedgerWriter, Row};
    use gate::model::{Judgement, Verdict};
    let f = Fixture::new(
        "version: 1\nsampling: {single: {n: 3, c: 0}}\ntasks:\n  - id: t\n    run: 'false'\n",
    );
    f.run(&[]).code(1);
    let rows: Vec<Row> = f.ledger().records.into_iter().map(|r| r.row).collect();
    let forged = f.path("forged.jsonl");
    let (mut w, _) = LedgerWriter::create(&forged).unwrap();
    for row in rows {
        let row = match row {
            Row::Decision(mut d) => {
                d.verdict = Judgement::Verdict(Verdict::Pass);
                Row::Decision(d)
            }
            Row::Footer(mut ft) => {
                ft.verdict = Judgement::Verdict(Verdict::Pass);
                ft.exit_code = 0;
                Row::Footer(ft)
            }
            other => other,
        };
        w.append(row).unwrap();
    }
    drop(w);
    gate()
        .current_dir(f.dir.path())
        .args(["report", "forged.jsonl"])
        .assert()
        .code(2)
        .stdout(predicate::str::contains("PASS").not())
        .stderr(predicate::str::contains(
            "decision for task `t` says PASS with run 1, passed 0, failed 1",
        ))
        .stderr(predicate::str::contains("no verdict is published"));
}

/// Regression: task text (ids, notes, reasons, output excerpts) could start a line of
/// gate's output with `::`, which the Actions runner executes (`::stop-commands::` silences
/// gate's own annotations, `::add-mask::` hides anything).
#[test]
fn task_text_cannot_start_a_workflow_command() {
    let f = Fixture::new(
        r#"version: 1
sampling: {single: {n: 2, c: 0}}
tasks:
  - id: "::warning::forged-id"
    run: 'printf "ok\n::stop-commands::tok\n  ::add-mask::x\n##[error]legacy\n" >&2; printf "{\"pass\": false, \"note\": \"a\n::error::forged-note\", \"fault\": \"x\n::add-mask::y\"}" > "$GATE_RESULT"; exit 1'
"#,
    );
    let out = f.command(&[]).output().unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("forged-id"), "{text}");
    for line in text.lines() {
        assert!(
            !gate::untrusted::is_workflow_command(line),
            "a task line acts as a workflow command: {line:?}\n{text}"
        );
    }
    let report = gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&report.stdout).to_string()
        + &String::from_utf8_lossy(&report.stderr);
    assert!(text.contains("forged-id"), "{text}");
    assert!(
        text.lines()
            .all(|l| !gate::untrusted::is_workflow_command(l)),
        "{text}"
    );
}

/// Issue 11: the result file's `note` and `score` reach the JSON report, the Markdown and
/// JUnit (the note inert in Markdown).
#[test]
fn result_note_and_score_reach_every_report() {
    let f = one_trial(
        r#"printf "{\"pass\": true, \"score\": 0.75, \"note\": \"see [docs](https://x.example)\"}" > "$GATE_RESULT""#,
    );
    f.run(&["--json", "r.json", "--junit", "j.xml", "--summary", "s.md"])
        .code(0);
    let json: serde_json::Value = serde_json::from_str(&read(&f.path("r.json"))).unwrap();
    let trial = &json["tasks"][0]["trial_list"][0];
    assert_eq!(trial["score"], 0.75);
    assert_eq!(trial["note"], "see [docs](https://x.example)");
    let junit = read(&f.path("j.xml"));
    assert!(
        junit.contains("[gate] result file: score 0.75 · note: see [docs](https://x.example)"),
        "{junit}"
    );
    let md = read(&f.path("s.md"));
    assert!(
        md.contains("- **Score (result files):** mean 0.75 over 1 trial"),
        "{md}"
    );
    assert!(
        md.contains("- **Notes:** #1: see \\[docs\\](https:&#47;&#47;x.example)"),
        "{md}"
    );
}

/// Regression, at full size: a 500-task plan produced a 1.05 MB step summary, which GitHub
/// drops whole. The step summary stays under the limit and keeps every verdict row; what it
/// leaves out is in the `--summary` file it points at.
#[test]
fn a_500_task_plan_keeps_the_step_summary_under_github_s_1_mib_limit() {
    let mut yaml = String::from("version: 1\nsampling: {single: {n: 2, c: 1}}\ntasks:\n");
    for i in 0..500 {
        yaml.push_str(&format!(
            "  - id: a-task-with-a-long-name-as-real-suites-have-{i:04}\n    run: \"true\"\n"
        ));
    }
    let f = Fixture::new(&yaml);
    let step = f.path("step-summary.md");
    gate()
        .current_dir(f.dir.path())
        .args(["run", "plan.yaml", "--ledger", "out/ledger.jsonl", "-q"])
        .args(["--summary", "full.md"])
        .env_remove("GITHUB_ACTIONS")
        .env("GITHUB_STEP_SUMMARY", &step)
        .assert()
        .code(0);
    let full = std::fs::read_to_string(f.path("full.md")).unwrap();
    let shown = std::fs::read_to_string(&step).unwrap();
    assert!(full.len() > 1 << 20, "the whole summary is over 1 MiB");
    assert!(shown.len() < 1 << 20, "{} bytes", shown.len());
    for i in 0..500 {
        let row = format!("| a-task-with-a-long-name-as-real-suites-have-{i:04} | ✅ PASS |");
        assert!(shown.contains(&row), "row {i} kept");
    }
    // Detail goes first (issue 18, break 9): the charts and OC tables, and says so.
    assert!(shown.contains("this one leaves out"), "{shown}");
    assert!(shown.contains("`full.md`"), "{shown}");
}
