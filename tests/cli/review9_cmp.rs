//! Review 9 (issue 29), compare pairing and the readers: a head failure never vanishes from a
//! compare, a skip is no observation on base, promptfoo files cut short are refused, and
//! googletest's disabled tests are skips. Each test is named after the attack it pins
//! (/work/scratch/rev9/REPORT.md).

use crate::common::gate;

/// One JUnit run file: test cases from `cases` (`(name, pattern char)`: `P` pass, `F` fail,
/// `S` skipped, `-` absent), a distinct timestamp per (side, run) so that no two runs are
/// one run given twice.
fn junit_run(side: &str, run: usize, cases: &[(&str, char)]) -> String {
    let mut xml = format!(
        "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T{}:{:02}:{:02}\">",
        if side == "base" { "01" } else { "02" },
        run / 60,
        run % 60
    );
    for (name, c) in cases {
        match c {
            'P' => xml.push_str(&format!("<testcase classname=\"t\" name=\"{name}\"/>")),
            'F' => xml.push_str(&format!(
                "<testcase classname=\"t\" name=\"{name}\"><failure message=\"boom\"/></testcase>"
            )),
            'S' => xml.push_str(&format!(
                "<testcase classname=\"t\" name=\"{name}\"><skipped/></testcase>"
            )),
            _ => {}
        }
    }
    xml.push_str("</testsuite></testsuites>\n");
    xml
}

/// Writes `runs` files per side (`side/rNNN.xml`; base's count, head's), each from
/// `cases(side, run)` (run from 1), and runs `gate ingest --base … -- … --odds-ratio 3
/// extra…`; returns (exit code, output).
fn ingest_base(
    d: &std::path::Path,
    runs: (usize, usize),
    cases: impl Fn(&str, usize) -> Vec<(&'static str, char)>,
    extra: &[&str],
) -> (Option<i32>, String) {
    let count = |side: &str| if side == "base" { runs.0 } else { runs.1 };
    for side in ["base", "head"] {
        std::fs::create_dir_all(d.join(side)).unwrap();
        for r in 1..=count(side) {
            std::fs::write(
                d.join(format!("{side}/r{r:03}.xml")),
                junit_run(side, r, &cases(side, r)),
            )
            .unwrap();
        }
    }
    let files = |side: &str| -> Vec<String> {
        (1..=count(side))
            .map(|r| format!("{side}/r{r:03}.xml"))
            .collect()
    };
    let out = gate()
        .current_dir(d)
        .args([
            "ingest",
            "--odds-ratio",
            "3",
            "--assume-retries-off",
            "--ledger",
            "l.jsonl",
            "--no-step-summary",
        ])
        .args(extra)
        .arg("--base")
        .args(files("base"))
        .arg("--")
        .args(files("head"))
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.code(), text)
}

/// `gate report` and `gate verify` of the ingest's ledger: the same verdict (exit code), and
/// every decision recomputes (review 9, a21).
fn replay_agrees(d: &std::path::Path, code: i32) {
    gate()
        .current_dir(d)
        .args(["report", "l.jsonl", "--no-step-summary"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .assert()
        .code(code);
    gate()
        .current_dir(d)
        .args(["verify", "l.jsonl"])
        .assert()
        .code(0);
}

/// The ledger's attempt rows of task `task` on `side` with outcome `outcome`.
fn rows(d: &std::path::Path, task: &str, side: &str, outcome: &str) -> usize {
    std::fs::read_to_string(d.join("l.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| {
            l.contains("\"attempt\"")
                && l.contains(&format!("\"task\":\"{task}\""))
                && l.contains(&format!("\"side\":\"{side}\""))
                && l.contains(&format!("\"outcome\":\"{outcome}\""))
        })
        .count()
}

/// Review 9, a04: base skipped `t::x` in runs 1–50 where head failed it (head 50 %, base
/// 100 %): base's skip was a stand-in base *failure*, so each pair was (fail, fail) and head's
/// failures cancelled: `t::x PASS … 0 of 29 pairs`, exit 0. Base's skip is no observation: the
/// pair has head's side only, a gap no PASS is read across.
#[test]
fn rev9_a04_base_skip_where_head_fails_does_not_pass() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (100, 100),
        |side, r| {
            let x = match (side, r <= 50) {
                ("base", true) => 'S',
                ("head", true) => 'F',
                _ => 'P',
            };
            vec![("ok", 'P'), ("x", x)]
        },
        &[],
    );
    assert_eq!(code, Some(3), "{text}");
    assert!(!text.contains("t::x  PASS"), "{text}");
    assert!(
        text.contains("runs with no partner on the other side"),
        "{text}"
    );
    assert!(text.contains("no observation on base"), "{text}");
    // Head's 50 failures are in the ledger; base's skips are not base failures.
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 50, "{text}");
    assert_eq!(rows(d.path(), "t::x", "base", "fail"), 0, "{text}");
    replay_agrees(d.path(), 3);
}

/// Review 9, a04 (interleaved, and absent rather than skipped): base lacks `t::x` in odd runs,
/// head fails it there. Before: PASS.
#[test]
fn rev9_a04_base_missing_the_test_in_odd_runs_where_head_fails_does_not_pass() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (60, 60),
        |side, r| {
            let x = match (side, r % 2 == 1) {
                ("base", true) => '-',
                ("head", true) => 'F',
                _ => 'P',
            };
            vec![("ok", 'P'), ("x", x)]
        },
        &[],
    );
    assert_eq!(code, Some(3), "{text}");
    assert!(!text.contains("t::x  PASS"), "{text}");
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 30, "{text}");
    replay_agrees(d.path(), 3);
}

/// Review 9, a04/a19/a21: head's run file records `t::x` twice (passing, then failing: Jest's
/// two same-named tests, or a suite appended twice), base once, passing. The first record was
/// paired and the failing one dropped from the verdict and from the ledger: PASS, exit 0, where
/// plain `gate ingest` of the same head files FAILs. The second record is a pair with head's
/// side only: written to the ledger, and no PASS is read across it.
#[test]
fn rev9_a19_a_test_recorded_twice_in_a_head_run_keeps_its_failure() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (40, 40),
        |side, _| {
            if side == "head" {
                vec![("ok", 'P'), ("x", 'P'), ("x", 'F')]
            } else {
                vec![("ok", 'P'), ("x", 'P')]
            }
        },
        &[],
    );
    assert_eq!(code, Some(3), "{text}");
    assert!(!text.contains("t::x  PASS"), "{text}");
    assert!(
        text.contains("record #2 of the test in run file #1"),
        "{text}"
    );
    // a21: every failing record reaches the ledger.
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 40, "{text}");
    replay_agrees(d.path(), 3);
}

/// Review 9, a04/a21: head has 60 run files and base 30, and head fails `t::x` only in its
/// last 30, which have no base partner. That is after the compare rule decided (pair 29), so
/// the PASS stands (ordinary sequential stopping, as runs past a decision in plain ingest),
/// but those 30 failing records never reached the ledger: the audit evidence omitted them.
/// They are now written (excluded, not graded), and the replay agrees.
#[test]
fn rev9_a21_head_runs_without_a_base_partner_reach_the_ledger() {
    let d = tempfile::tempdir().unwrap();
    let (code, text) = ingest_base(
        d.path(),
        (30, 60),
        |side, r| match (side, r > 30) {
            ("head", true) => vec![("ok", 'P'), ("x", 'F')],
            _ => vec![("ok", 'P'), ("x", 'P')],
        },
        &[],
    );
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("t::x  PASS"), "{text}");
    assert_eq!(rows(d.path(), "t::x", "head", "fail"), 30, "{text}");
    replay_agrees(d.path(), 0);
}

/// Review 9, a08: a compare suite read base's `<skipped/>` of a case the runs before it ran as
/// a base *failure* (the c35 rule, right for head, applied to both sides), so it cancelled
/// head's real failure in that pair: head failing `e` in every even run while base skipped it
/// there gave `both fail` pairs and `s/t::e PASS`, exit 0. On base a skip can be neither a
/// failure nor nothing (which would drop head's failure): every pair needs both sides, so it
/// is a harness error naming base, as a case base's run lacks is.
#[test]
fn rev9_a08_a_base_skip_never_cancels_a_head_failure_in_a_compare_suite() {
    let f = crate::common::Fixture::new(
        "version: 1\nbase:\n  cwd: base\n  env: {SIDE: base}\ntasks:\n  - id: s\n    cwd: head\n    env: {SIDE: head}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n    sampling:\n      compare: {odds_ratio: 3, drop: 50%}\n",
    );
    // Even runs: base skips `e`, head fails it; odd runs: both pass it.
    let suite = r#"{ printf '<testsuites><testsuite name="s" timestamp="2026-01-01T00:%02d:%02d">' "$((GATE_TRIAL / 60 % 60))" "$((GATE_TRIAL % 60))"
  for c in a b; do printf '<testcase classname="t" name="%s"/>' "$c"; done
  case "$SIDE:$((GATE_TRIAL % 2))" in
    base:0) printf '<testcase classname="t" name="e"><skipped/></testcase>' ;;
    head:0) printf '<testcase classname="t" name="e"><failure message="x"/></testcase>' ;;
    *) printf '<testcase classname="t" name="e"/>' ;;
  esac
  printf '</testsuite></testsuites>\n'; } > "$GATE_JUNIT"
"#;
    for side in ["head", "base"] {
        std::fs::create_dir(f.path(side)).unwrap();
        std::fs::write(f.path(&format!("{side}/suite.sh")), suite).unwrap();
    }
    let out = f
        .command(&[])
        .timeout(std::time::Duration::from_secs(240))
        .output()
        .unwrap();
    let text =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(!text.contains("s/t::e  PASS"), "{text}");
    assert!(text.contains("base skipped test case `s/t::e`"), "{text}");
}
