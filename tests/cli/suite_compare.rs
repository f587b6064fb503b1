//! `compare:` on whole suites (issue 31): a `suite:` task with a `compare:` rule runs the
//! suite on head and on base each run, pairs every test case head against base, judges each
//! by the compare rule at the family's share, and runs only the undecided cases again on both
//! sides; `gate ingest --base` shares alpha over the compared cases the same way.

use crate::common::{Fixture, gate};

/// The generated suite: cases `t::a` … `t::e`, each passing unless named in `$FAIL` (space
/// separated) or recorded skipped when named in `$SKIP`, plus the cases in `$EXTRA`, into
/// `$OUT` if set (else `$GATE_JUNIT`), after `sleep $SLOW` if set. It honours `GATE_SUITE_CASES` and appends every
/// case it runs to `calls.log` in its folder (one side's count). Each run's file differs
/// (its `timestamp`).
const SUITE_SH: &str = r#"[ -n "$SLOW" ] && sleep "$SLOW"
out="${OUT:-$GATE_JUNIT}"
want="$GATE_SUITE_CASES"
printf '<testsuites><testsuite name="s" timestamp="2026-01-01T00:%02d:%02d">' "$((GATE_TRIAL / 60 % 60))" "$((GATE_TRIAL % 60))" > "$out"
late=""; [ "$GATE_TRIAL" -ge 2 ] && late="$LATE"
for c in a b c d e $EXTRA $late; do
  if [ -s "$want" ] && ! grep -qx "t::$c" "$want"; then continue; fi
  echo "$c" >> calls.log
  case " $SKIP " in
    *" $c "*) printf '<testcase classname="t" name="%s"><skipped/></testcase>' "$c" >> "$out"; continue ;;
  esac
  case " $FAIL " in
    *" $c "*) printf '<testcase classname="t" name="%s"><failure message="x"/></testcase>' "$c" >> "$out" ;;
    *) printf '<testcase classname="t" name="%s"/>' "$c" >> "$out" ;;
  esac
done
printf '</testsuite></testsuites>\n' >> "$out"
"#;

/// A plan whose suite runs in `head/` (with `head_env`) against base in `base/` (with
/// `base_env`), both running [`SUITE_SH`], judged by `compare: {odds_ratio: 3}`.
fn compare_suite(head_env: &str, base_env: &str, policy: &str) -> Fixture {
    compare_suite_in("base", "", head_env, base_env, policy)
}

/// [`compare_suite`] with base in `base_cwd` and `suite_keys` (lines of the `suite:` map).
fn compare_suite_in(
    base_cwd: &str,
    suite_keys: &str,
    head_env: &str,
    base_env: &str,
    policy: &str,
) -> Fixture {
    let f = Fixture::new(&format!(
        "version: 1\n{policy}base:\n  cwd: {base_cwd}\n  env: {{{base_env}}}\ntasks:\n  - id: s\n    cwd: head\n    env: {{{head_env}}}\n    suite:\n      run: sh suite.sh\n      assume_retries_off: true\n{suite_keys}    sampling:\n      compare: {{odds_ratio: 3}}\n"
    ));
    for side in ["head", "base"] {
        std::fs::create_dir(f.path(side)).unwrap();
        std::fs::write(f.path(&format!("{side}/suite.sh")), SUITE_SH).unwrap();
    }
    f
}

/// How often each case ran on `side`.
fn calls(f: &Fixture, side: &str) -> std::collections::BTreeMap<String, u64> {
    let mut n = std::collections::BTreeMap::new();
    for line in std::fs::read_to_string(f.path(&format!("{side}/calls.log")))
        .unwrap_or_default()
        .lines()
    {
        *n.entry(line.to_string()).or_default() += 1;
    }
    n
}

fn json(f: &Fixture, rel: &str) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(f.path(rel)).unwrap()).unwrap()
}

fn task<'a>(r: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .unwrap_or_else(|| panic!("no task {id} in {r}"))
}

#[test]
fn a_suite_task_with_a_compare_rule_fails_the_regressed_case_only() {
    // Head fails `e` every run, base never: `e` regressed; `a`–`d` pass on both sides.
    let f = compare_suite("FAIL: e", "FAIL: ''", "");
    let out = f
        .command(&["--json", "out/r.json", "--summary", "out/r.md"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = json(&f, "out/r.json");
    assert_eq!(r["verdict"], "FAIL");
    for c in ["a", "b", "c", "d"] {
        let t = task(&r, &format!("s/t::{c}"));
        assert_eq!(t["verdict"], "PASS", "{t}");
        assert_eq!(t["pairs"]["head_only_fail"], 0, "{t}");
    }
    let e = task(&r, "s/t::e");
    assert_eq!(e["verdict"], "FAIL", "{e}");
    assert_eq!(e["pairs"]["base_only_fail"], 0, "{e}");
    assert!(e["pairs"]["head_only_fail"].as_u64().unwrap() > 0, "{e}");
    // The family: five cases, the suite's alpha kept, each case's compare rule at the share.
    let suite = &r["suites"][0];
    assert_eq!(suite["id"], "s");
    assert_eq!(suite["cases"], 5);
    assert!(suite["alpha"].as_f64().unwrap() <= 0.05, "{suite}");
    let family = f
        .ledger()
        .attempts()
        .find_map(|a| a.suite_run.as_ref().and_then(|s| s.family.clone()))
        .expect("the run that fixed the cases records the family design");
    let share = -((-0.05f64).ln_1p() / 5.0).exp_m1();
    assert!((family.case_alpha - share).abs() < 1e-12);
    assert!(family.pairs.is_some(), "{family:?}");
    // Terminal and Markdown give each case's compare verdict and the family line.
    assert!(stdout.contains("s/t::e  FAIL"), "{stdout}");
    assert!(stdout.contains("head lost"), "{stdout}");
    assert!(
        stdout.contains("as good on head as on base") && stdout.contains("(head and base)"),
        "{stdout}"
    );
    let md = std::fs::read_to_string(f.path("out/r.md")).unwrap();
    assert!(md.contains("t::e") && md.contains("FAIL"), "{md}");
    // `gate verify` recomputes every case; `gate report` replays the same verdicts.
    gate()
        .current_dir(f.dir.path())
        .args(["verify", "out/ledger.jsonl"])
        .assert()
        .code(0);
    let replay = gate()
        .current_dir(f.dir.path())
        .args(["report", "out/ledger.jsonl", "--json", "out/replay.json"])
        .output()
        .unwrap();
    assert_eq!(replay.status.code(), Some(1));
    let again = json(&f, "out/replay.json");
    assert_eq!(again["tasks"], r["tasks"]);
    assert_eq!(again["suites"], r["suites"]);
}

#[test]
fn a_decided_compare_case_is_not_executed_again_on_either_side() {
    let f = compare_suite("FAIL: e", "FAIL: ''", "");
    f.command(&["--json", "out/r.json"]).assert().code(1);
    let r = json(&f, "out/r.json");
    let pairs = |c: &str| {
        task(&r, &format!("s/t::{c}"))["pairs"]["total"]
            .as_u64()
            .unwrap()
    };
    for side in ["head", "base"] {
        let n = calls(&f, side);
        // Each case ran exactly as often as it had pairs: once decided, no run asked for it.
        for c in ["a", "b", "c", "d", "e"] {
            assert_eq!(
                n.get(c).copied(),
                Some(pairs(c)),
                "{side} side, case {c}: {n:?}"
            );
        }
        assert!(n["e"] < n["a"], "the regressed case decided first: {n:?}");
    }
}

#[test]
fn a_compare_suite_runs_both_sides_together_with_two_jobs_and_replays_exactly() {
    let f = compare_suite("FAIL: e", "FAIL: ''", "policy:\n  jobs: 4\n");
    f.command(&["--json", "out/r.json"]).assert().code(1);
    let r = json(&f, "out/r.json");
    assert_eq!(task(&r, "s/t::e")["verdict"], "FAIL");
    assert_eq!(task(&r, "s/t::a")["verdict"], "PASS");
    gate()
        .current_dir(f.dir.path())
        .args(["verify", "out/ledger.jsonl"])
        .assert()
        .code(0);
}

#[test]
fn an_interrupted_compare_suite_resumes_to_the_same_exact_verdicts() {
    let f = compare_suite("FAIL: e, SLOW: '0.1'", "FAIL: ''", "policy:\n  jobs: 1\n");
    let code = crate::common::run_and_interrupt(&f, std::time::Duration::from_millis(700));
    assert_eq!(code, Some(130));
    let before = f.ledger().attempts().count();
    f.run(&["--resume", "--json", "out/r.json"]).code(1);
    let l = f.ledger();
    assert!(
        l.attempts().count() > before,
        "the resumed run ran more suite runs"
    );
    let r = json(&f, "out/r.json");
    assert_eq!(task(&r, "s/t::e")["verdict"], "FAIL");
    for c in ["a", "b", "c", "d"] {
        assert_eq!(task(&r, &format!("s/t::{c}"))["verdict"], "PASS");
    }
    // No side of a run is recorded twice with different content (the replay refuses a
    // conflict), and every case's verdict recomputes.
    gate()
        .current_dir(f.dir.path())
        .args(["verify", "out/ledger.jsonl"])
        .assert()
        .code(0);
}

#[test]
fn a_case_on_one_side_only_is_a_harness_error_naming_it() {
    let f = compare_suite("FAIL: '', EXTRA: f", "FAIL: '', EXTRA: ''", "");
    let out = f.command(&[]).output().unwrap();
    let text = crate::common::both(&out);
    assert_eq!(out.status.code(), Some(4), "{text}");
    assert!(text.contains("t::f"), "{text}");
    assert!(text.contains("one side only cannot be compared"), "{text}");
}

/// A compare suite stopped by a harness error after its first run left a ledger gate could
/// not read back: its decision row counted the run both sides finished, and the replay fed
/// the suite's own rows to the cases' compare rule, which counted none, so `gate report`
/// refused the ledger as forged and `gate verify` called it BAD. The suite's own rows are
/// replayed on the rule its runs were scheduled by.
#[test]
fn a_compare_suite_stopped_by_a_harness_error_after_its_first_run_keeps_its_ledger_readable() {
    for (head, base) in [("LATE: f", "LATE: ''"), ("LATE: ''", "LATE: f")] {
        for jobs in [1, 2] {
            let f = compare_suite(
                &format!("FAIL: e, {head}"),
                &format!("FAIL: '', {base}"),
                &format!("policy:\n  jobs: {jobs}\n"),
            );
            let out = f.command(&[]).output().unwrap();
            let text = String::from_utf8_lossy(&out.stdout).to_string();
            assert_eq!(out.status.code(), Some(4), "{text}");
            assert!(text.contains("suite run #2"), "{text}");
            let report = gate()
                .current_dir(f.dir.path())
                .args(["report", "out/ledger.jsonl"])
                .output()
                .unwrap();
            let rtext = crate::common::both(&report);
            assert_eq!(report.status.code(), Some(4), "{rtext}");
            assert!(rtext.contains("s  HARNESS ERROR"), "{rtext}");
            assert!(!rtext.contains("recompute"), "{rtext}");
            // Shown as the compare task it is, not as a pass rate (review 15, F1).
            let suite_block = rtext.split("\n\n").next().unwrap();
            assert!(suite_block.contains("compare    pairs"), "{rtext}");
            assert!(!suite_block.contains("pass rate"), "{rtext}");
            gate()
                .current_dir(f.dir.path())
                .args(["verify", "out/ledger.jsonl"])
                .assert()
                .code(0)
                .stdout(predicates::str::contains("1 decision recomputes"));
        }
    }
}

/// Review 6, a13: a case one side lacks was a harness error that blamed the side read
/// second when the other side's record was read first ("base side: … new: [s/t::f]"): the
/// first side read fixed the cases. The error now names the side that lacks the case,
/// whichever side is read first.
#[test]
fn a_case_head_lacks_is_a_harness_error_naming_head_as_lacking_it() {
    for jobs in [1, 2] {
        let f = compare_suite(
            "FAIL: '', EXTRA: ''",
            "FAIL: '', EXTRA: f",
            &format!("policy:\n  jobs: {jobs}\n"),
        );
        let out = f.command(&[]).output().unwrap();
        let text = crate::common::both(&out);
        assert_eq!(out.status.code(), Some(4), "{text}");
        assert!(text.contains(r#"head lacks: ["s/t::f"]"#), "{text}");
        assert!(!text.contains(r#"base lacks: ["s/t::f"]"#), "{text}");
    }
}

/// Review 7, c35 in a compare suite: head recording a case base runs as skipped in every
/// run (as code under test raising `SkipTest` would) never lets the gate PASS. Since review
/// 10 (a15) a skipped case is recorded on either side, whichever side's first run is read
/// first: head never ran it, so no pair has a head side and the case is INCONCLUSIVE (as
/// `gate ingest --base` judges a case only base runs). Before, the wall depended on the
/// order (FAIL, or a harness error naming head as lacking it).
#[test]
fn a_case_head_skips_that_base_runs_never_passes() {
    for jobs in [1, 2] {
        let f = compare_suite(
            "FAIL: '', SKIP: e",
            "FAIL: '', SKIP: ''",
            &format!("policy:\n  jobs: {jobs}\n"),
        );
        let out = f.command(&["--json", "out/r.json"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(3), "{text}");
        let r = json(&f, "out/r.json");
        assert_eq!(task(&r, "s/t::e")["verdict"], "INCONCLUSIVE", "{text}");
        assert!(text.contains("has one side only"), "{text}");
    }
}

/// Review 6, "not tried": a compare suite with a fixed `results:` path was refused with
/// `--jobs 2` and `3` ("cannot run 2 at a time") by the preflight, which counted `jobs` runs
/// at once where the compare suite runs `jobs / 2` (docs: refused above 3). Both layouts now
/// run: base beside head (the sides at once, one file per folder) and base in head's own
/// folder (the sides one after the other, one file).
#[test]
fn a_compare_suite_with_a_fixed_results_path_runs_with_two_and_three_jobs() {
    for (jobs, base_cwd) in [(2, "base"), (3, "base"), (2, "head"), (3, "head")] {
        let f = compare_suite_in(
            base_cwd,
            "      results: r.xml\n",
            "OUT: r.xml, FAIL: e",
            "OUT: r.xml, FAIL: ''",
            &format!("policy:\n  jobs: {jobs}\n"),
        );
        let out = f.command(&["--json", "out/r.json"]).output().unwrap();
        let text = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.code(),
            Some(1),
            "jobs {jobs}, base {base_cwd}: {text}"
        );
        let r = json(&f, "out/r.json");
        assert_eq!(task(&r, "s/t::e")["verdict"], "FAIL");
        assert_eq!(task(&r, "s/t::a")["verdict"], "PASS");
        gate()
            .current_dir(f.dir.path())
            .args(["verify", "out/ledger.jsonl"])
            .assert()
            .code(0);
    }
    // Four jobs would be two runs at once, each side writing its one file twice.
    let f = compare_suite_in(
        "base",
        "      results: r.xml\n",
        "OUT: r.xml",
        "OUT: r.xml",
        "",
    );
    let out = f.command(&["--jobs", "4"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot run 2 at a time"));
}

#[test]
fn a_compare_suite_with_base_inside_head_is_refused() {
    let f = Fixture::new(
        "version: 1\ntasks:\n  - id: s\n    cwd: head\n    suite:\n      run: sh suite.sh\n    base:\n      cwd: head/base\n    sampling:\n      compare: {odds_ratio: 3}\n",
    );
    std::fs::create_dir_all(f.path("head/base")).unwrap();
    let out = gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("plan.yaml:8:"), "{err}");
    assert!(err.contains("check base out beside head"), "{err}");
}

#[test]
fn gate_check_prints_the_family_and_the_compare_rule_of_a_compare_suite() {
    let f = compare_suite("FAIL: e", "FAIL: ''", "");
    let out = gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("each test case is paired head against base"),
        "{text}"
    );
    assert!(
        text.contains("family     the test cases are one family: the compare rule is designed again at alpha 1 − (1 − 0.05)^(1/K)"),
        "{text}"
    );
    assert!(
        text.contains("designed compare rule: odds ratio 3"),
        "{text}"
    );
    assert!(text.contains("base runs in `base`"), "{text}");
}

#[test]
fn a_base_check_on_a_suite_task_is_refused() {
    let f = Fixture::new(
        "version: 1\ntasks:\n  - id: s\n    suite:\n      run: sh suite.sh\n    base:\n      check: 'true'\n    sampling:\n      compare: {odds_ratio: 3}\n",
    );
    let out = gate()
        .current_dir(f.dir.path())
        .args(["check", "plan.yaml"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("`base.check` does not apply to a suite task"),
        "{err}"
    );
}

/// One run of a suite of `cases` deterministic passes, as JUnit (run `k` stamped `k` s).
fn junit_run(cases: u32, k: u32) -> String {
    let mut s = format!(
        "<testsuites><testsuite name=\"s\" timestamp=\"2026-01-01T00:{:02}:{:02}\">",
        k / 60,
        k % 60
    );
    for c in 0..cases {
        s.push_str(&format!("<testcase classname=\"t\" name=\"c{c}\"/>"));
    }
    s.push_str("</testsuite></testsuites>\n");
    s
}

/// `gate ingest --odds-ratio 3 --base` over 40 runs of a passing suite of `base_cases`
/// cases on base and 40 of `head_cases` on head (`c0`, `c1`, …): the folder, the exit code
/// and everything printed.
fn ingest_base(base_cases: u32, head_cases: u32) -> (Fixture, Option<i32>, String) {
    let dir = Fixture {
        dir: tempfile::tempdir().unwrap(),
    };
    let mut args: Vec<String> = [
        "ingest",
        "--odds-ratio",
        "3",
        "--assume-retries-off",
        "--ledger",
        "l.jsonl",
        "--json",
        "r.json",
        "--no-step-summary",
        "--base",
    ]
    .map(String::from)
    .to_vec();
    for (side, offset, cases) in [("base", 0, base_cases), ("head", 100, head_cases)] {
        for k in 1..=40 {
            let p = dir.path(&format!("{side}-{k:02}.xml"));
            std::fs::write(&p, junit_run(cases, k + offset)).unwrap();
            args.push(p.display().to_string());
        }
        if side == "base" {
            args.push("--".into());
        }
    }
    let out = gate()
        .current_dir(dir.dir.path())
        .args(&args)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    let text = crate::common::both(&out);
    (dir, out.status.code(), text)
}

/// `gate verify` of the ingest's ledger in `f` exits 0, and `gate report` recomputes it to
/// the ingest's exit `code`.
fn ledger_recomputes(f: &Fixture, code: i32) {
    let dir = f.dir.path();
    gate()
        .current_dir(dir)
        .args(["verify", "l.jsonl"])
        .assert()
        .code(0);
    gate()
        .current_dir(dir)
        .args(["report", "l.jsonl", "--json", "again.json"])
        .assert()
        .code(code);
}

#[test]
fn ingest_with_base_shares_alpha_over_the_compared_cases() {
    let (dir, code, text) = ingest_base(4, 4);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("family: the 4 test cases compared are one family"),
        "{text}"
    );
    // The header records each case's rule at the share, so the replay judges with it.
    let l = gate::ledger::Ledger::read(&dir.path("l.jsonl")).unwrap();
    let share = -((-0.05f64).ln_1p() / 4.0).exp_m1();
    for t in &l.header().tasks {
        let gate::model::Sampling::Sequential { alpha, .. } = t.sampling else {
            panic!("a compare rule is sequential: {t:?}")
        };
        assert!(
            alpha < share,
            "lattice alpha {alpha} within the share {share}"
        );
    }
    ledger_recomputes(&dir, 0);
}

/// Review 6, a14 (D): a test case only head records (a PR that adds a test) was left out of
/// the pairs but not out of the ledger header, so the ingest decided PASS while its ledger
/// recomputed to INCONCLUSIVE: exit 4 and a ledger `gate report` refused. It is now named as
/// new, not compared, and not a task.
#[test]
fn ingest_base_with_a_test_added_on_head_passes_and_its_ledger_recomputes() {
    let (dir, code, text) = ingest_base(4, 5);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("new on head, not compared (base never ran them): `t::c4`"),
        "{text}"
    );
    assert!(
        text.contains("family: the 4 test cases compared are one family"),
        "{text}"
    );
    let l = gate::ledger::Ledger::read(&dir.path("l.jsonl")).unwrap();
    assert!(l.header().tasks.iter().all(|t| t.id != "t::c4"));
    ledger_recomputes(&dir, 0);
}

/// Review 6, a14 (A): head deleting a test (here the twelve `c4` … `c15`, as a PR deleting a
/// regressed test would) left it "not judged" and the gate PASSed on the rest; the one-sided
/// list named ten cases and said nothing of the others. A case only base records is now
/// INCONCLUSIVE with a reason, so the gate cannot PASS, and the list counts the rest.
#[test]
fn ingest_base_with_a_test_removed_on_head_is_inconclusive_not_pass() {
    let (dir, code, text) = ingest_base(16, 4);
    assert_eq!(code, Some(3), "{text}");
    assert!(
        text.contains("on base only, so INCONCLUSIVE and the gate cannot PASS"),
        "{text}"
    );
    assert!(
        text.contains("`t::c15`") && text.contains(", and 2 more"),
        "{text}"
    );
    assert!(
        text.contains("family: the 4 test cases compared are one family"),
        "{text}"
    );
    let r = json(&dir, "r.json");
    assert_eq!(r["verdict"], "INCONCLUSIVE");
    assert_eq!(task(&r, "t::c9")["verdict"], "INCONCLUSIVE");
    assert_eq!(task(&r, "t::c0")["verdict"], "PASS");
    let l = gate::ledger::Ledger::read(&dir.path("l.jsonl")).unwrap();
    let d = crate::common::decision(&l, "t::c9");
    assert_eq!(d.reason, gate::pair_sampler::NO_PAIR_REASON);
    assert_eq!(
        task(&r, "t::c9")["reason"],
        gate::pair_sampler::NO_PAIR_REASON
    );
    ledger_recomputes(&dir, 3);
}
