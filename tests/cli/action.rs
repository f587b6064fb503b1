//! The GitHub Action's shell logic (`scripts/gate-action.sh`), run the way the runner runs it:
//! `GITHUB_ACTIONS=true`, a fake `GITHUB_OUTPUT` and `GITHUB_STEP_SUMMARY`, inputs as
//! `INPUT_*` variables, and the `gate` built by this test run first on PATH. The outputs the
//! workflow sees, the step summary, the annotations and the step's exit status are checked
//! for PASS and FAIL plans, shards merged with `ledgers`, and the action's own input errors.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};

use assert_cmd::Command;
use tempfile::TempDir;

const PASS_PLAN: &str = r#"version: 1
sampling:
  single: {n: 5, c: 1}
tasks:
  - id: always-pass
    run: "true"
"#;

const FAIL_PLAN: &str = r#"version: 1
sampling:
  single: {n: 5, c: 1}
tasks:
  - id: always-fail
    run: "false"
"#;

const MIXED_PLAN: &str = r#"version: 1
sampling:
  single: {n: 5, c: 1}
tasks:
  - id: always-pass
    run: "true"
  - id: always-fail
    run: "false"
"#;

/// A scratch workspace with the files a runner provides to a step.
struct Workspace {
    dir: TempDir,
}

/// What one step of the action left behind.
struct Step {
    code: i32,
    stdout: String,
    stderr: String,
    outputs: BTreeMap<String, String>,
    summary: String,
}

impl Workspace {
    fn new() -> Self {
        Workspace {
            dir: tempfile::tempdir().expect("temp dir"),
        }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).expect("create plan dir");
        }
        fs::write(path, text).expect("write plan");
    }

    /// Run `gate-action.sh MODE` with these inputs, in the workspace, as one fresh step.
    fn step(&self, mode: &str, inputs: &[(&str, &str)]) -> Step {
        let output_file = self.path("github-output");
        let summary_file = self.path("github-step-summary");
        let path_file = self.path("github-path");
        for file in [&output_file, &summary_file, &path_file] {
            fs::write(file, "").expect("reset runner file");
        }
        let mut cmd = Command::new("bash");
        cmd.arg(script()).arg(mode).current_dir(self.dir.path());
        // The test may itself run inside GitHub Actions: nothing of the real step leaks in.
        for (key, _) in std::env::vars_os() {
            let key_text = key.to_string_lossy();
            if key_text.starts_with("INPUT_")
                || key_text.starts_with("GITHUB_")
                || key_text.starts_with("GATE_")
            {
                cmd.env_remove(&key);
            }
        }
        cmd.env("PATH", path_with_gate())
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_OUTPUT", &output_file)
            .env("GITHUB_STEP_SUMMARY", &summary_file)
            .env("GITHUB_PATH", &path_file)
            .env("GATE_INSTALL_ROOT", self.path("install-root"));
        for (name, value) in inputs {
            cmd.env(*name, *value);
        }
        let out = cmd.output().expect("run bash");
        Step {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            outputs: parse_outputs(&fs::read_to_string(&output_file).expect("read outputs")),
            summary: fs::read_to_string(&summary_file).expect("read summary"),
        }
    }
}

impl Step {
    fn output(&self, name: &str) -> &str {
        self.outputs
            .get(name)
            .map(String::as_str)
            .unwrap_or_else(|| {
                panic!(
                    "no output `{name}` in {:?}\nstdout:\n{}\nstderr:\n{}",
                    self.outputs, self.stdout, self.stderr
                )
            })
    }

    fn assert_code(&self, expected: i32) {
        assert_eq!(
            self.code, expected,
            "exit code\nstdout:\n{}\nstderr:\n{}",
            self.stdout, self.stderr
        );
    }

    /// The `::error` workflow commands printed on stdout, where the runner reads them.
    fn error_annotations(&self) -> Vec<&str> {
        self.stdout
            .lines()
            .filter(|line| line.starts_with("::error"))
            .collect()
    }
}

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gate-action.sh")
}

/// PATH with the directory of the `gate` under test first.
fn path_with_gate() -> OsString {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_gate"))
        .parent()
        .expect("gate binary has a directory")
        .to_path_buf();
    let mut dirs = vec![bin_dir];
    if let Some(path) = std::env::var_os("PATH") {
        dirs.extend(std::env::split_paths(&path));
    }
    std::env::join_paths(dirs).expect("join PATH")
}

/// Parse a `GITHUB_OUTPUT` file: `name=value` lines and `name<<DELIMITER` blocks.
fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut outputs = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some((name, delimiter)) = line.split_once("<<") {
            let mut value = Vec::new();
            for body in lines.by_ref() {
                if body == delimiter {
                    break;
                }
                value.push(body);
            }
            outputs.insert(name.to_string(), value.join("\n"));
        } else if let Some((name, value)) = line.split_once('=') {
            outputs.insert(name.to_string(), value.to_string());
        }
    }
    outputs
}

/// The top-level verdict of a JSON report written by gate.
fn report_verdict(ws: &Workspace, report: &str) -> serde_json::Value {
    let text = fs::read_to_string(ws.path(report)).expect("read JSON report");
    let json: serde_json::Value = serde_json::from_str(&text).expect("JSON report parses");
    json["verdict"].clone()
}

#[test]
fn pass_plan_sets_outputs_and_summary_without_error_annotations() {
    let ws = Workspace::new();
    ws.write("plans/pass.yaml", PASS_PLAN);
    let step = ws.step("run", &[("INPUT_PLAN", "plans/pass.yaml")]);

    step.assert_code(0);
    assert_eq!(step.output("verdict"), "PASS");
    assert_eq!(step.output("exit-code"), "0");
    assert_eq!(step.output("ledger"), "gate-out/ledger.jsonl");
    assert_eq!(step.output("junit"), "gate-out/junit.xml");
    assert_eq!(step.output("report"), "gate-out/report.json");
    assert!(ws.path("gate-out/ledger.jsonl").is_file());
    let junit = fs::read_to_string(ws.path("gate-out/junit.xml")).expect("JUnit written");
    assert!(
        junit.contains("always-pass"),
        "JUnit names the task:\n{junit}"
    );
    assert_eq!(report_verdict(&ws, "gate-out/report.json"), "PASS");
    assert!(
        step.summary.contains("PASS") && step.summary.contains("always-pass"),
        "step summary:\n{}",
        step.summary
    );
    assert!(step.error_annotations().is_empty(), "{}", step.stdout);
}

#[test]
fn fail_plan_fails_the_step_with_an_error_annotation() {
    let ws = Workspace::new();
    ws.write("fail.yaml", FAIL_PLAN);
    let step = ws.step("run", &[("INPUT_PLAN", "fail.yaml")]);

    step.assert_code(1);
    assert_eq!(step.output("verdict"), "FAIL");
    assert_eq!(step.output("exit-code"), "1");
    assert_eq!(report_verdict(&ws, "gate-out/report.json"), "FAIL");
    let junit = fs::read_to_string(ws.path("gate-out/junit.xml")).expect("JUnit written");
    assert!(
        junit.contains("<failure"),
        "JUnit records failures:\n{junit}"
    );
    assert!(
        step.summary.contains("FAIL") && step.summary.contains("always-fail"),
        "step summary:\n{}",
        step.summary
    );
    assert!(
        !step.error_annotations().is_empty(),
        "a FAIL is annotated:\n{}",
        step.stdout
    );
}

#[test]
fn summary_false_leaves_the_step_summary_alone() {
    let ws = Workspace::new();
    ws.write("pass.yaml", PASS_PLAN);
    let step = ws.step(
        "run",
        &[("INPUT_PLAN", "pass.yaml"), ("INPUT_SUMMARY", "false")],
    );
    step.assert_code(0);
    assert_eq!(step.output("verdict"), "PASS");
    assert_eq!(step.summary, "");
}

#[test]
fn args_are_split_like_xargs_and_reach_gate_unquoted() {
    let ws = Workspace::new();
    ws.write("mixed.yaml", MIXED_PLAN);
    // Quotes are removed by the split: gate sees the task id itself, runs only it, passes.
    let step = ws.step(
        "run",
        &[
            ("INPUT_PLAN", "mixed.yaml"),
            ("INPUT_ARGS", "--task 'always-pass'"),
        ],
    );
    step.assert_code(0);
    assert_eq!(step.output("verdict"), "PASS");

    let both = ws.step("run", &[("INPUT_PLAN", "mixed.yaml")]);
    both.assert_code(1);
    assert_eq!(both.output("verdict"), "FAIL");
}

#[test]
fn unbalanced_quote_in_args_is_an_input_error() {
    let ws = Workspace::new();
    ws.write("pass.yaml", PASS_PLAN);
    let step = ws.step(
        "run",
        &[("INPUT_PLAN", "pass.yaml"), ("INPUT_ARGS", "--task 'oops")],
    );
    step.assert_code(2);
    assert_eq!(step.output("verdict"), "ERROR");
    let annotations = step.error_annotations();
    assert_eq!(
        annotations,
        ["::error title=gate action::cannot split `args`: unmatched single quote"]
    );
    assert!(!ws.path("gate-out").exists(), "gate never ran");
}

#[test]
fn plan_glob_matching_nothing_is_an_input_error() {
    let ws = Workspace::new();
    let step = ws.step("run", &[("INPUT_PLAN", "plans/*.yaml")]);
    step.assert_code(2);
    assert_eq!(step.output("verdict"), "ERROR");
    assert_eq!(step.output("exit-code"), "2");
    assert_eq!(
        step.error_annotations(),
        ["::error title=gate action::`plan` matched no file: `plans/*.yaml`"]
    );
}

#[test]
fn invalid_inputs_are_rejected_before_gate_runs() {
    let ws = Workspace::new();
    ws.write("pass.yaml", PASS_PLAN);
    for (name, value, message) in [
        (
            "INPUT_ON_INCONCLUSIVE",
            "maybe",
            "invalid `on-inconclusive`: `maybe`, expected `fail` or `pass`",
        ),
        (
            "INPUT_JOBS",
            "0",
            "invalid `jobs`: `0`, expected a positive integer",
        ),
        (
            "INPUT_SUMMARY",
            "yes",
            "invalid `summary`: `yes`, expected `true` or `false`",
        ),
        ("INPUT_SHARD", "two", "invalid `shard`: `two`, expected K/M"),
    ] {
        let step = ws.step("run", &[("INPUT_PLAN", "pass.yaml"), (name, value)]);
        step.assert_code(2);
        assert_eq!(step.output("verdict"), "ERROR", "{name}={value}");
        assert_eq!(
            step.error_annotations(),
            [format!("::error title=gate action::{message}")],
            "{name}={value}"
        );
    }
}

#[test]
fn a_glob_over_several_plans_gives_each_its_directory_and_the_worst_verdict() {
    let ws = Workspace::new();
    ws.write("plans/a-pass.yaml", PASS_PLAN);
    ws.write("plans/b-fail.yaml", FAIL_PLAN);
    let step = ws.step("run", &[("INPUT_PLAN", "plans/*.yaml")]);

    step.assert_code(1);
    assert_eq!(step.output("verdict"), "FAIL");
    assert_eq!(
        step.output("ledger"),
        "gate-out/a-pass/ledger.jsonl\ngate-out/b-fail/ledger.jsonl"
    );
    assert_eq!(
        step.output("report"),
        "gate-out/a-pass/report.json\ngate-out/b-fail/report.json"
    );
    assert_eq!(report_verdict(&ws, "gate-out/a-pass/report.json"), "PASS");
    assert_eq!(report_verdict(&ws, "gate-out/b-fail/report.json"), "FAIL");
}

#[test]
fn shards_merged_with_ledgers_give_one_verdict() {
    let ws = Workspace::new();
    ws.write("pass.yaml", PASS_PLAN);
    for k in 1..=2 {
        let shard = format!("{k}/2");
        let out_dir = format!("shard-{k}");
        let step = ws.step(
            "run",
            &[
                ("INPUT_PLAN", "pass.yaml"),
                ("INPUT_SHARD", &shard),
                ("INPUT_OUT_DIR", &out_dir),
            ],
        );
        step.assert_code(0);
        assert_eq!(step.output("ledger"), format!("{out_dir}/ledger.jsonl"));
    }
    let merged = ws.step("run", &[("INPUT_LEDGERS", "shard-*/ledger.jsonl")]);
    merged.assert_code(0);
    assert_eq!(merged.output("verdict"), "PASS");
    assert_eq!(
        merged.output("ledger"),
        "shard-1/ledger.jsonl\nshard-2/ledger.jsonl"
    );
    assert_eq!(report_verdict(&ws, "gate-out/report.json"), "PASS");
    assert!(merged.summary.contains("PASS"), "{}", merged.summary);
}

#[test]
fn locate_uses_gate_on_path_or_plans_a_cached_build() {
    let ws = Workspace::new();
    let on_path = ws.step("locate", &[("INPUT_INSTALL", "path")]);
    on_path.assert_code(0);
    assert_eq!(on_path.output("build"), "false");

    let build = ws.step("locate", &[("INPUT_INSTALL", "build")]);
    build.assert_code(0);
    assert_eq!(build.output("build"), "true");
    let bin_dir = ws.path("install-root/bin");
    assert_eq!(build.output("bin-dir"), bin_dir.to_string_lossy());
    let hash = build.output("source-hash");
    assert!(
        hash.len() == 64 && hash.chars().all(|c| c.is_ascii_hexdigit()),
        "source-hash is a SHA-256: `{hash}`"
    );
    let github_path = fs::read_to_string(ws.path("github-path")).expect("read GITHUB_PATH");
    assert_eq!(github_path, format!("{}\n", bin_dir.to_string_lossy()));

    let bad = ws.step("locate", &[("INPUT_INSTALL", "download")]);
    bad.assert_code(2);
    assert_eq!(
        bad.error_annotations(),
        [
            "::error title=gate action::invalid `install`: `download`, expected one of `auto`, `path`, `build`"
        ]
    );
}

/// Regression (review): `plan` was silently ignored when `ledgers` was set.
#[test]
fn merge_mode_refuses_a_plan_as_well() {
    let ws = Workspace::new();
    ws.write("pass.yaml", PASS_PLAN);
    let step = ws.step(
        "run",
        &[
            ("INPUT_PLAN", "pass.yaml"),
            ("INPUT_LEDGERS", "x/ledger.jsonl"),
        ],
    );
    step.assert_code(2);
    assert_eq!(
        step.error_annotations(),
        [
            "::error title=gate action::`plan` and `ledgers` are exclusive: run plans, or merge ledgers"
        ]
    );
}

/// Regression (review): `plans/*` handed gate the directory `plans/demo/`.
#[test]
fn a_plan_glob_skips_directories() {
    let ws = Workspace::new();
    ws.write("plans/pass.yaml", PASS_PLAN);
    ws.write("plans/helpers/run.sh", "#!/bin/sh\n");
    let step = ws.step("run", &[("INPUT_PLAN", "plans/*")]);
    step.assert_code(0);
    assert_eq!(step.output("verdict"), "PASS");
    assert_eq!(step.output("ledger"), "gate-out/ledger.jsonl");
}

/// Regression (review): after an invalid plan the path outputs named files never written.
#[test]
fn an_invalid_plan_leaves_no_path_outputs() {
    let ws = Workspace::new();
    ws.write("bad.yaml", "version: 1\ntasks: []\n");
    let step = ws.step("run", &[("INPUT_PLAN", "bad.yaml")]);
    step.assert_code(2);
    assert_eq!(step.output("verdict"), "ERROR");
    for name in ["ledger", "junit", "report"] {
        assert_eq!(step.output(name), "", "{name}");
    }
}

/// Regression (review): `install: auto` trusted any program called `gate` on PATH.
#[test]
fn auto_builds_when_the_gate_on_path_is_another_program() {
    let ws = Workspace::new();
    ws.write("fake/gate", "#!/bin/sh\necho 'gate 9.9.9'\n");
    let fake = ws.path("fake/gate");
    fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut path = OsString::from(ws.path("fake"));
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let step = ws.step(
        "locate",
        &[("INPUT_INSTALL", "auto"), ("PATH", path.to_str().unwrap())],
    );
    step.assert_code(0);
    assert_eq!(step.output("build"), "true");
    assert!(
        step.stdout
            .contains("was not built from this action's source"),
        "{}",
        step.stdout
    );
}

/// The act run showed `install: auto` taking any `gate` whose version string matched: a
/// stale or different build of the same version passed. The build identity decides now.
#[test]
fn auto_takes_a_gate_on_path_only_when_its_build_id_is_this_source() {
    let ws = Workspace::new();
    // Same version string, another build.
    let version = format!("gate {}", env!("CARGO_PKG_VERSION"));
    ws.write(
        "fake/gate",
        &format!(
            "#!/bin/sh\ncase $1 in build-id) echo {};; *) echo '{version}';; esac\n",
            "0".repeat(64)
        ),
    );
    let fake = ws.path("fake/gate");
    fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let mut path = OsString::from(ws.path("fake"));
    path.push(":");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let stale = ws.step(
        "locate",
        &[("INPUT_INSTALL", "auto"), ("PATH", path.to_str().unwrap())],
    );
    stale.assert_code(0);
    assert_eq!(stale.output("build"), "true", "{}", stale.stdout);
    // The gate built from this very source is taken as it is.
    let same = ws.step(
        "locate",
        &[
            ("INPUT_INSTALL", "auto"),
            ("PATH", path_with_gate().to_str().unwrap()),
        ],
    );
    same.assert_code(0);
    assert_eq!(same.output("build"), "false", "{}", same.stdout);
}

/// `scripts/release.sh`, the release workflow's packaging step.
fn release_sh(args: &[&str]) -> std::process::Output {
    std::process::Command::new("bash")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/release.sh"))
        .args(args)
        .output()
        .expect("run release.sh")
}

/// The tag the release workflow accepts for this source: `v` + Cargo.toml's version.
fn this_tag() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

/// A release of the `gate` under test, packaged by `release.sh` under `ws/release/<tag>/`,
/// as the release workflow publishes it.
fn publish_release(ws: &Workspace) -> (String, PathBuf) {
    let tag = this_tag();
    let target = match std::env::consts::ARCH {
        "aarch64" => "aarch64-unknown-linux-musl",
        _ => "x86_64-unknown-linux-musl",
    };
    let dir = ws.path(&format!("release/{tag}"));
    let out = release_sh(&[
        "package",
        env!("CARGO_BIN_EXE_gate"),
        &tag,
        target,
        dir.to_str().unwrap(),
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (format!("gate-{tag}-{target}.tar.gz"), dir)
}

/// PATH without the gate under test (so `auto` cannot use it) but with cargo (the fallback).
fn path_without_gate() -> String {
    let cargo = std::process::Command::new("sh")
        .args(["-c", "command -v cargo"])
        .output()
        .expect("sh");
    let cargo_dir = Path::new(String::from_utf8_lossy(&cargo.stdout).trim())
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default();
    format!("{}:/usr/bin:/bin", cargo_dir.display())
}

#[test]
fn release_sh_refuses_a_tag_that_does_not_match_cargo_toml() {
    let ok = release_sh(&["check-tag", &this_tag()]);
    assert!(ok.status.success());
    let bad = release_sh(&["check-tag", "v9.9.9"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("does not match"));
}

#[test]
fn at_a_release_tag_auto_downloads_the_release_binary_and_verifies_its_checksum() {
    let ws = Workspace::new();
    let (asset, dir) = publish_release(&ws);
    let sums = fs::read_to_string(dir.join(format!("{asset}.sha256"))).unwrap();
    assert!(
        sums.ends_with(&format!("  {asset}\n")),
        "sha256sum format: {sums}"
    );
    let base = format!("file://{}", ws.path("release").display());
    let step = ws.step(
        "locate",
        &[
            ("INPUT_INSTALL", "auto"),
            ("PATH", &path_without_gate()),
            ("GATE_ACTION_REF", &this_tag()),
            ("GATE_RELEASE_BASE_URL", &base),
        ],
    );
    step.assert_code(0);
    assert_eq!(step.output("build"), "false");
    let bin_dir = ws.path("install-root/bin");
    assert_eq!(step.output("bin-dir"), bin_dir.to_string_lossy());
    assert!(step.stdout.contains("SHA-256"), "{}", step.stdout);
    let installed = std::process::Command::new(bin_dir.join("gate"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&installed.stdout).trim(),
        format!("gate {}", env!("CARGO_PKG_VERSION"))
    );
    let github_path = fs::read_to_string(ws.path("github-path")).unwrap();
    assert_eq!(github_path, format!("{}\n", bin_dir.to_string_lossy()));
}

#[test]
fn a_release_binary_with_a_wrong_checksum_is_not_used_the_action_builds_instead() {
    let ws = Workspace::new();
    let (asset, dir) = publish_release(&ws);
    fs::write(
        dir.join(format!("{asset}.sha256")),
        format!("{}  {asset}\n", "0".repeat(64)),
    )
    .unwrap();
    let base = format!("file://{}", ws.path("release").display());
    let step = ws.step(
        "locate",
        &[
            ("INPUT_INSTALL", "auto"),
            ("PATH", &path_without_gate()),
            ("GATE_ACTION_REF", &this_tag()),
            ("GATE_RELEASE_BASE_URL", &base),
        ],
    );
    step.assert_code(0);
    assert_eq!(step.output("build"), "true");
    assert!(
        step.stdout.contains("but its checksum file says 0000")
            && step.stdout.contains("building from source"),
        "{}",
        step.stdout
    );
    assert!(!ws.path("install-root/bin/gate").exists());
}

#[test]
fn a_branch_ref_or_a_missing_release_builds_from_source() {
    let ws = Workspace::new();
    let base = format!("file://{}", ws.path("no-release").display());
    for (reference, says) in [
        ("main", None),
        (this_tag().as_str(), Some("cannot download")),
    ] {
        let step = ws.step(
            "locate",
            &[
                ("INPUT_INSTALL", "auto"),
                ("PATH", &path_without_gate()),
                ("GATE_ACTION_REF", reference),
                ("GATE_RELEASE_BASE_URL", &base),
            ],
        );
        step.assert_code(0);
        assert_eq!(step.output("build"), "true", "{reference}");
        if let Some(says) = says {
            assert!(step.stdout.contains(says), "{}", step.stdout);
        }
    }
}

/// Copy the pytest fixture runs (20 files, real pytest output) into the workspace.
fn copy_pytest_runs(ws: &Workspace) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/junit/pytest-runs");
    for entry in fs::read_dir(dir).expect("fixture dir") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .expect("file name")
            .to_string_lossy()
            .into_owned();
        ws.write(
            &format!("results/{name}"),
            &fs::read_to_string(&path).expect("read fixture"),
        );
    }
}

#[test]
fn results_ingest_junit_files_with_the_same_outputs() {
    let ws = Workspace::new();
    copy_pytest_runs(&ws);
    let step = ws.step(
        "run",
        &[
            ("INPUT_RESULTS", "results/run-*.xml"),
            ("INPUT_ARGS", "--single 20,3"),
        ],
    );
    // test_refund fails 7 of its 20 first attempts: FAIL.
    step.assert_code(1);
    assert_eq!(step.output("verdict"), "FAIL");
    assert_eq!(step.output("exit-code"), "1");
    assert_eq!(step.output("ledger"), "gate-out/ledger.jsonl");
    assert_eq!(report_verdict(&ws, "gate-out/report.json"), "FAIL");
    let ledger = gate::ledger::Ledger::read(&ws.path("gate-out/ledger.jsonl")).expect("ledger");
    let sources: Vec<&str> = ledger
        .header()
        .sources
        .iter()
        .map(|s| s.path.as_str())
        .collect();
    assert_eq!(sources.len(), 20);
    assert_eq!(sources[0], "results/run-01.xml");
    assert_eq!(sources[19], "results/run-20.xml");
    assert!(
        step.summary.contains("test_agent::test_refund"),
        "{}",
        step.summary
    );

    // With a plan whose tasks select test cases.
    ws.write(
        "gate.yaml",
        "version: 1\nsampling:\n  single: {n: 20, c: 15}\ntasks:\n  - id: refund\n    junit: \"*::test_refund\"\n    sampling:\n      single: {n: 20, c: 8}\n",
    );
    let step = ws.step(
        "run",
        &[
            ("INPUT_RESULTS", "results/run-*.xml"),
            ("INPUT_PLAN", "gate.yaml"),
            ("INPUT_OUT_DIR", "planned"),
        ],
    );
    step.assert_code(0);
    assert_eq!(step.output("verdict"), "PASS");
}

#[test]
fn overlapping_results_globs_ingest_each_run_once_and_a_copy_is_refused() {
    // Issue 29, break 1: overlapping globs gave gate `run-01 run-01 run-03 …`, one run counted
    // several times. The Action drops repeated paths; gate refuses repeated content.
    let ws = Workspace::new();
    copy_pytest_runs(&ws);
    let step = ws.step(
        "run",
        &[
            (
                "INPUT_RESULTS",
                "results/run-01.xml\nresults/run-0*.xml\nresults/run-*.xml",
            ),
            ("INPUT_ARGS", "--single 20,3"),
        ],
    );
    step.assert_code(1);
    let ledger = gate::ledger::Ledger::read(&ws.path("gate-out/ledger.jsonl")).expect("ledger");
    let sources: Vec<&str> = ledger
        .header()
        .sources
        .iter()
        .map(|s| s.path.as_str())
        .collect();
    assert_eq!(sources.len(), 20, "{sources:?}");
    assert_eq!(sources[0], "results/run-01.xml");
    assert_eq!(sources[19], "results/run-20.xml");
    // A copy of a run under another name is the same evidence: refused, naming both.
    ws.write(
        "results/run-21.xml",
        &fs::read_to_string(ws.path("results/run-03.xml")).expect("read"),
    );
    let step = ws.step(
        "run",
        &[
            ("INPUT_RESULTS", "results/run-*.xml"),
            ("INPUT_ARGS", "--single 21,3"),
            ("INPUT_OUT_DIR", "copied"),
        ],
    );
    step.assert_code(2);
    assert!(
        step.stderr
            .contains("results/run-03.xml and results/run-21.xml: the same file content"),
        "{}",
        step.stderr
    );
}

#[test]
fn results_refuses_ledgers_shard_and_an_empty_glob() {
    let ws = Workspace::new();
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[
                ("INPUT_RESULTS", "r/*.xml"),
                ("INPUT_LEDGERS", "x/ledger.jsonl"),
            ],
            "::error title=gate action::`results` and `ledgers` are exclusive: ingest JUnit files, or merge ledgers",
        ),
        (
            &[("INPUT_RESULTS", "r/*.xml"), ("INPUT_SHARD", "1/2")],
            "::error title=gate action::`shard` applies to `gate run`, not to ingesting `results`",
        ),
        (
            &[("INPUT_RESULTS", "r/*.xml")],
            "::error title=gate action::`results` matched no file: `r/*.xml`",
        ),
    ];
    for (inputs, expected) in cases {
        let step = ws.step("run", inputs);
        step.assert_code(2);
        assert_eq!(step.error_annotations(), [*expected]);
    }
}

/// Break 1 (issue 18): with `plan: plans/*.yaml`, the first plan's task rewrote the second
/// plan (`run: "true"`) before it ran, and the regressed agent passed. Every plan is read
/// before any task of the step starts; a plan changed since is run as it was.
#[test]
fn a_task_that_rewrites_a_later_plan_does_not_change_its_verdict() {
    let ws = Workspace::new();
    ws.write(
        "plans/a.yaml",
        // The box off: it would refuse the rewrite itself; this pins the action's own wall.
        "version: 1\nsampling:\n  single: {n: 2, c: 0}\npolicy: {sandbox: off}\ntasks:\n  - id: rewrites\n    run: \"cp forged.txt b.yaml\"\n",
    );
    ws.write("plans/forged.txt", PASS_PLAN);
    ws.write("plans/b.yaml", FAIL_PLAN);
    let step = ws.step("run", &[("INPUT_PLAN", "plans/*.yaml")]);
    step.assert_code(1);
    assert_eq!(step.output("verdict"), "FAIL");
    assert_eq!(step.output("exit-code"), "1");
    assert_eq!(report_verdict(&ws, "gate-out/b/report.json"), "FAIL");
    assert!(
        step.stdout
            .contains("`plans/b.yaml` changed after this step started"),
        "{}",
        step.stdout
    );
    assert_eq!(
        fs::read_to_string(ws.path("plans/b.yaml")).unwrap(),
        FAIL_PLAN
    );
}

/// Break 1 (issue 18): a task replaced the `gate` binary on PATH, and the later plans of the
/// step ran the fake. The step runs a copy of gate taken before any task started.
#[test]
fn a_task_that_replaces_the_gate_binary_changes_no_later_plan() {
    let ws = Workspace::new();
    fs::create_dir_all(ws.path("bin")).unwrap();
    fs::copy(env!("CARGO_BIN_EXE_gate"), ws.path("bin/gate")).unwrap();
    ws.write(
        "plans/a.yaml",
        "version: 1\nsampling:\n  single: {n: 1, c: 0}\ntasks:\n  - id: replaces\n    run: |\n      g=$(command -v gate); rm -f \"$g\"; printf '#!/bin/sh\\nexit 0\\n' > \"$g\"; chmod +x \"$g\"\n",
    );
    ws.write("plans/b.yaml", FAIL_PLAN);
    let bin = ws.path("bin");
    let step = ws.step(
        "run",
        &[
            ("INPUT_PLAN", "plans/*.yaml"),
            ("GATE_BIN_DIR", bin.to_str().unwrap()),
        ],
    );
    step.assert_code(1);
    assert_eq!(step.output("verdict"), "FAIL");
    assert_eq!(report_verdict(&ws, "gate-out/b/report.json"), "FAIL");
    // Whether or not the task managed to replace it (a sandbox may stop it), the step ran
    // its own copy of gate for the second plan.
}

/// Break 4 (issue 18): a task appended `verdict=PASS`, `exit-code=0` and an open heredoc
/// (`x<<exit-code=1`) to `$GITHUB_OUTPUT`, which swallowed the action's own lines under the
/// runner's parsing rules. The step's outputs come from gate alone.
#[test]
fn outputs_forged_by_a_task_do_not_change_the_steps_outputs() {
    let ws = Workspace::new();
    ws.write(
        "fail.yaml",
        "version: 1\nsampling:\n  single: {n: 2, c: 0}\ntasks:\n  - id: forges\n    run: |\n      printf 'verdict=PASS\\nexit-code=0\\nx<<exit-code=1\\n' >> \"$GITHUB_OUTPUT\"\n      exit 1\n",
    );
    let step = ws.step("run", &[("INPUT_PLAN", "fail.yaml")]);
    step.assert_code(1);
    assert_eq!(step.output("verdict"), "FAIL");
    assert_eq!(step.output("exit-code"), "1");
    assert!(!step.outputs.contains_key("x"), "{:?}", step.outputs);
    let raw = fs::read_to_string(ws.path("github-output")).unwrap();
    assert!(!raw.contains("verdict=PASS"), "{raw}");
}

/// Break 4 (issue 18): a forged "✅ PASS" block followed by `<!--` hid gate's real summary.
/// Whatever a task writes to the step summary — the runner's file, or the file gate was
/// given — is not published as gate's.
#[test]
fn a_summary_forged_by_a_task_is_not_published() {
    let ws = Workspace::new();
    ws.write(
        "fail.yaml",
        "version: 1\nsampling:\n  single: {n: 1, c: 0}\ntasks:\n  - id: forges\n    run: |\n      printf '## gate: FORGED PASS\\n\\n<!--\\n' >> \"$GITHUB_STEP_SUMMARY\"\n      printf 'FORGED TOO <!--\\n' >> github-step-summary\n      exit 1\n",
    );
    let step = ws.step("run", &[("INPUT_PLAN", "fail.yaml")]);
    step.assert_code(1);
    assert_eq!(step.output("verdict"), "FAIL");
    assert!(!step.summary.contains("FORGED"), "{}", step.summary);
    assert!(!step.summary.contains("<!--"), "{}", step.summary);
    // Without a box the task reaches gate's summary file too, which is then not shown;
    // with one (no GITHUB_STEP_SUMMARY in the task's environment) gate's summary is.
    assert!(
        step.summary.contains("not shown") || step.summary.contains("| forges | ❌ FAIL |"),
        "{}",
        step.summary
    );
}

/// A staged run through the action: stage shards print no INCONCLUSIVE annotation (a
/// partial view is no verdict), the merges after stages 1 to 3 say CONTINUE without failing
/// the step, and the merge after stage 4 decides (1 failure in 16 passes).
#[test]
fn staged_shards_merge_to_continue_then_to_a_verdict_without_shard_annotations() {
    let ws = Workspace::new();
    ws.write(
        "staged.yaml",
        "version: 1\nsampling:\n  sequential: {healthy: 0.9, regressed: 0.7, stage: 4}\ntasks:\n  - id: t\n    run: 'test $GATE_TRIAL -ne 2'\n",
    );
    for stage in 1..=4 {
        // Every earlier stage's ledgers (`after`), one glob a line.
        let after: Vec<String> = (1..stage).map(|s| format!("s{s}-*/ledger.jsonl")).collect();
        let after = after.join("\n");
        for k in 1..=2 {
            let out_dir = format!("s{stage}-{k}");
            let step = ws.step(
                "run",
                &[
                    ("INPUT_PLAN", "staged.yaml"),
                    ("INPUT_STAGE", &stage.to_string()),
                    ("INPUT_SHARD", &format!("{k}/2")),
                    ("INPUT_AFTER", &after),
                    ("INPUT_OUT_DIR", &out_dir),
                    ("INPUT_SUMMARY", "false"),
                ],
            );
            step.assert_code(0);
            assert!(!step.stdout.contains("::warning"), "{}", step.stdout);
        }
        let merged = ws.step(
            "run",
            &[
                ("INPUT_LEDGERS", "s*-*/ledger.jsonl"),
                ("INPUT_OUT_DIR", "merged"),
            ],
        );
        merged.assert_code(0);
        assert!(!merged.stdout.contains("::warning"), "{}", merged.stdout);
        let (decision, code) = (merged.output("decision"), merged.output("exit-code"));
        if stage < 4 {
            // The rule passes no one before 12 trials, and 1 failure in 12 is above 0.
            assert_eq!((decision, code), ("CONTINUE", "5"), "stage {stage}");
        } else {
            assert_eq!((decision, code), ("PASS", "0"));
        }
    }
}
