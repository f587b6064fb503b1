//! A suite is a family (issue 30): real `gate run`s of generated suites keep the suite's
//! false-alarm risk within alpha while each case keeps its power; only undecided cases run
//! again (`GATE_SUITE_CASES`); the published family figures match an exact computation.
//!
//! The generated suite is an awk script (fast to start: a Monte Carlo of real runs spawns
//! thousands of suite runs): cases `c001..` are deterministic passes up to `DET`, the others
//! pass with probability `RATE` each run, drawn from /dev/urandom (2 bytes a case: the rate is
//! ⌈RATE·65536⌉/65536, at or just above RATE). It honours `GATE_SUITE_CASES` unless told to
//! ignore it.

use crate::common::{Fixture, gate};

const GEN_AWK: &str = r#"BEGIN {
  nb = split(bits, u); n = 0
  if (filt == "yes" && f != "") while ((getline line < f) > 0) { if (!n) first = line; want[line] = 1; n++ }
  printf "<testsuites><testsuite name=\"s\" timestamp=\"%s\">", ENVIRON["GATE_TRIAL"]
  for (i = 1; i <= det + others; i++) {
    name = sprintf("c%03d", i)
    if (n > 0 && !(("t::" name) in want)) continue
    if (skip == "first" && ("t::" name) == first) continue
    ok = 1
    if (i > det + 0 && u[i - det] + 0 >= rate * 65536) ok = 0
    if (ok) printf "<testcase classname=\"t\" name=\"%s\"/>", name
    else printf "<testcase classname=\"t\" name=\"%s\"><failure message=\"x\"/></testcase>", name
  }
  printf "</testsuite></testsuites>\n"
}
"#;

/// A plan with one suite task over the generated suite: `det` deterministic cases, `others`
/// at `rate`, judged by the calibrated 90%-vs-70% rule (alpha 0.05, beta 0.1). `filter`:
/// `yes` honours `GATE_SUITE_CASES`, `no` ignores it. `extra` is appended to the awk options.
fn family_plan(det: u32, rate: f64, others: u32, filter: &str, extra: &str) -> Fixture {
    let f = Fixture::new(&format!(
        "version: 1\nsampling:\n  design: {{healthy: 0.9, regressed: 0.7, rule: sequential}}\ntasks:\n  - id: s\n    suite:\n      run: >-\n        awk -v bits=\"$(od -An -v -N{} -tu2 /dev/urandom)\" -v det={det} -v rate={rate} -v others={others}\n        -v f=\"$GATE_SUITE_CASES\" -v filt={filter} {extra} -f gen.awk > \"$GATE_JUNIT\"\n      assume_retries_off: true\n",
        2 * others.max(1)
    ));
    std::fs::write(f.path("gen.awk"), GEN_AWK).unwrap();
    f
}

/// Run the fixture's plan once; the JSON report.
fn run_once(f: &Fixture, tag: &str) -> serde_json::Value {
    let json = format!("out/{tag}.json");
    let ledger = format!("out/{tag}.jsonl");
    let out = gate()
        .current_dir(f.dir.path())
        .args(["run", "plan.yaml", "--ledger", &ledger, "--no-step-summary"])
        .args(["--json", &json])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    // Both streams: the verdict and why (an INCONCLUSIVE, an interrupt) are on stdout, the
    // trials and any signal gate was sent on stderr. INCONCLUSIVE (exit 3) is a verdict too:
    // a truncated rule ends so with a small chance (the case at 70% below: 0.00024 a run,
    // as `gate plan` gives it; about one full test run in 140 met it and failed here).
    assert!(
        matches!(out.status.code(), Some(0 | 1 | 3)),
        "gate run ended {}:\n{}",
        out.status,
        crate::common::both(&out)
    );
    serde_json::from_slice(&std::fs::read(f.path(&json)).unwrap()).unwrap()
}

/// `runs` real `gate run`s of the fixture, 8 at a time; their JSON reports.
fn runs(f: &Fixture, runs: usize) -> Vec<serde_json::Value> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let out = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    if i >= runs {
                        break;
                    }
                    let r = run_once(f, &format!("r{i}"));
                    out.lock().unwrap().push(r);
                }
            });
        }
    });
    out.into_inner().unwrap()
}

/// What made each red run of `reports` red, for a failure's message: the tasks that did not
/// PASS, each with its verdict and reason.
fn why_red(reports: &[serde_json::Value]) -> String {
    reports
        .iter()
        .filter(|r| r["verdict"] != "PASS")
        .map(|r| {
            let tasks: Vec<String> = r["tasks"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|t| t["verdict"] != "PASS")
                .map(|t| format!("{} {} ({})", t["id"], t["verdict"], t["reason"]))
                .collect();
            format!("{}: {}", r["verdict"], tasks.join("; "))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn verdict_of<'a>(r: &'a serde_json::Value, id: &str) -> &'a str {
    r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == id)
        .and_then(|t| t["verdict"].as_str())
        .unwrap_or("missing")
}

/// The exact figures the report publishes, recomputed: every case's exact alpha is the one
/// `gate plan` gives the calibrated rule at Šidák's share of 0.05 over the cases, and the
/// suite's is 1 − (1 − a)^K.
fn check_published(r: &serde_json::Value, cases: u64) -> f64 {
    let suite = &r["suites"][0];
    assert_eq!(suite["id"], "s");
    assert_eq!(suite["cases"], cases);
    let share = -((-0.05f64).ln_1p() / cases as f64).exp_m1();
    let plan = crate::common::json_of(
        "plan",
        &[
            "--healthy",
            "0.9",
            "--regressed",
            "0.7",
            "--alpha",
            &share.to_string(),
            "--rule",
            "calibrated",
        ],
    );
    let a = plan["sequential"]["realised_alpha"].as_f64().unwrap();
    assert!(
        a <= share,
        "each case's exact alpha {a} is within its share {share}"
    );
    let family = 1.0 - (1.0 - a).powi(cases as i32);
    let published = suite["alpha"].as_f64().unwrap();
    assert!(
        (published - family).abs() < 1e-12,
        "published {published} against exact {family}"
    );
    assert!(published <= 0.05);
    for t in r["multiplicity"]["tasks"].as_array().unwrap() {
        assert!((t["alpha"].as_f64().unwrap() - a).abs() < 1e-12, "{t}");
    }
    family
}

/// A count of `runs` Bernoulli(p) events is at most this, but with probability about 3e-5
/// (4 standard deviations above the mean, plus one for the discreteness).
fn at_most(p: f64, runs: usize) -> usize {
    let n = runs as f64;
    (n * p + 4.0 * (n * p * (1.0 - p)).sqrt() + 1.0).floor() as usize
}

/// Issue 30: 50 cases at the healthy 90% under "90% vs 70%" went red with probability 0.881
/// (45 deterministic + 5 at 90%: 0.192). As one family, real runs go red at most alpha of the
/// time, and a case at the regressed rate is still caught with probability at least 1 − beta.
///
/// Tolerances: a count above the exact family risk by 4 standard deviations (plus one) fails,
/// a false alarm of this test of about 1e-4. 50 runs of the 50 healthy cases (bound: 9 red,
/// against 0.881 · 50 = 44 expected before the fix) and 80 of the 45 + 5 (bound: 3 red,
/// against 15 expected before; P(≤ 3 | 0.192) < 1e-3). The regressed case: P(FAIL) ≥ 0.9
/// exactly, so fewer than ⌈30·0.9 − 4·sd − 1⌉ = 20 FAILs in 30 runs fails the test. Some 160
/// real runs in all, 8 at a time.
#[test]
fn a_healthy_suite_of_fifty_cases_goes_red_at_most_alpha_of_the_time() {
    let started = std::time::Instant::now();
    // 50 cases at the healthy rate.
    let f = family_plan(0, 0.9, 50, "yes", "");
    let reports = runs(&f, 50);
    let exact = check_published(&reports[0], 50);
    let red = reports.iter().filter(|r| r["verdict"] != "PASS").count();
    assert!(
        red <= at_most(exact, reports.len()),
        "{red} of {} healthy suites went red; the family risk is {exact}:\n{}",
        reports.len(),
        why_red(&reports)
    );
    // 45 deterministic + 5 at 90%: the deterministic cases never fail, so the exact risk is
    // 1 − (1 − a)^5 for the same a.
    let f = family_plan(45, 0.9, 5, "yes", "");
    let reports = runs(&f, 80);
    let full = check_published(&reports[0], 50);
    let a = 1.0 - (1.0 - full).powf(1.0 / 50.0);
    let exact = 1.0 - (1.0 - a).powi(5);
    let red = reports.iter().filter(|r| r["verdict"] != "PASS").count();
    assert!(
        red <= at_most(exact, reports.len()),
        "{red} of {} suites of 45 deterministic + 5 healthy cases went red; exact risk {exact}:\n{}",
        reports.len(),
        why_red(&reports)
    );
    // 49 deterministic + 1 at the regressed 70%: that case FAILs with probability ≥ 0.9.
    let f = family_plan(49, 0.7, 1, "yes", "");
    let reports = runs(&f, 30);
    let caught = reports
        .iter()
        .filter(|r| verdict_of(r, "s/t::c050") == "FAIL")
        .count();
    let n = reports.len() as f64;
    let floor = (n * 0.9 - 4.0 * (n * 0.9 * 0.1).sqrt() - 1.0).ceil() as usize;
    assert!(
        caught >= floor,
        "the regressed case FAILed in {caught} of {} runs; at least {floor} expected (power 0.9)",
        reports.len()
    );
    assert!(
        reports.iter().all(|r| verdict_of(r, "s/t::c001") == "PASS"),
        "deterministic cases PASS"
    );
    eprintln!("Monte Carlo of 160 real runs: {:?}", started.elapsed());
}

/// Only undecided cases run again: with the filter honoured, a run after the first records
/// only the cases still undecided at its launch; every case asked for is there. The test-case
/// executions published (`case_runs`) are the rows, and `gate report` replays the same.
#[test]
fn only_undecided_cases_run_again_and_the_report_replays_it() {
    let f = family_plan(45, 0.9, 5, "yes", "");
    let r = run_once(&f, "one");
    let ledger = gate::ledger::Ledger::read(&f.path("out/one.jsonl")).unwrap();
    let suite_runs: Vec<_> = ledger
        .attempts()
        .filter(|a| a.task == "s")
        .filter_map(|a| a.suite_run.clone())
        .collect();
    assert_eq!(suite_runs[0].cases, 50, "the first run runs every case");
    assert!(
        suite_runs[0].family.is_some(),
        "the first run records the design"
    );
    // The deterministic cases PASS at run 9 (9 straight passes): later runs ask for fewer.
    assert!(suite_runs.len() >= 9);
    for s in &suite_runs[9..] {
        assert!(
            s.cases <= 5,
            "a run after the deterministic cases decided ran {}",
            s.cases
        );
        assert_eq!(s.asked, Some(s.cases));
    }
    let case_rows = ledger.attempts().filter(|a| a.task != "s").count() as u64;
    assert_eq!(r["suites"][0]["case_runs"], case_rows);
    assert_eq!(r["suites"][0]["runs"], suite_runs.len() as u64);
    let out = gate()
        .current_dir(f.dir.path())
        .args(["report", "out/one.jsonl", "--json", "out/again.json"])
        .output()
        .unwrap();
    // The replay's verdict is the run's, INCONCLUSIVE included (see `run_once`).
    assert!(matches!(out.status.code(), Some(0 | 1 | 3)));
    let again: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.path("out/again.json")).unwrap()).unwrap();
    assert_eq!(again["suites"], r["suites"]);
    assert_eq!(again["tasks"], r["tasks"]);
}

/// A suite command that ignores the filter still works: its extra results are recorded and
/// not counted (a decided case's sampler excludes them), and the verdicts are the same kind.
#[test]
fn a_suite_command_that_ignores_the_filter_still_judges_every_case() {
    let f = family_plan(45, 0.9, 5, "no", "");
    let r = run_once(&f, "all");
    let ledger = gate::ledger::Ledger::read(&f.path("out/all.jsonl")).unwrap();
    assert!(
        ledger
            .attempts()
            .filter_map(|a| a.suite_run.as_ref())
            .all(|s| s.cases == 50),
        "every run recorded every case"
    );
    assert_eq!(verdict_of(&r, "s/t::c001"), "PASS");
    let c001 = r["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["id"] == "s/t::c001")
        .unwrap();
    assert_eq!(
        c001["trials"]["passed"], 9,
        "decided at 9; later rows excluded"
    );
}

/// A case asked for and missing from a run is a harness error, not a silent gap.
#[test]
fn a_case_asked_for_and_missing_is_a_harness_error() {
    // The command drops the first case of every list it is given. The deterministic cases
    // decide at run 9; of the twelve at 80%, at least two are almost surely still undecided
    // then, so a run with a list of two or more follows. (With five, one case alone was
    // left undecided in one CI run: its list of one, dropped, is a result with no case at
    // all, a harness error of another name.)
    let f = family_plan(45, 0.8, 12, "yes", "-v skip=first");
    let out = gate()
        .current_dir(f.dir.path())
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/l.jsonl",
            "--no-step-summary",
        ])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(4));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("undecided ones it was asked for (`GATE_SUITE_CASES`)")
            && stderr.contains("missing: [\"s/t::c0"),
        "{stderr}"
    );
}

/// Issue 30: `policy.suite_alpha` counted the plan's tasks (k = 1 for one `suite:` task), so
/// each of 33 cases got the whole 10% and the report said `P(a healthy suite fails
/// somewhere) = 0.9667 over 33 tasks`. Now the suite's cases share it.
#[test]
fn policy_suite_alpha_is_shared_by_the_suite_cases_not_given_to_each() {
    let f = Fixture::new(
        "version: 1\npolicy: {suite_alpha: 0.1}\nsampling:\n  design: {healthy: 0.9, regressed: 0.7, rule: sequential}\ntasks:\n  - id: s\n    suite:\n      run: >-\n        awk 'BEGIN { printf \"<testsuites><testsuite name=\\\"s\\\" timestamp=\\\"%s\\\">\", ENVIRON[\"GATE_TRIAL\"]; for (i = 1; i <= 33; i++) printf \"<testcase classname=\\\"t\\\" name=\\\"c%03d\\\"/>\", i; print \"</testsuite></testsuites>\" }' > \"$GATE_JUNIT\"\n      assume_retries_off: true\n",
    );
    let r = run_once(&f, "sa");
    assert_eq!(r["verdict"], "PASS");
    let cost = r["multiplicity"]["cost"].as_f64().unwrap();
    assert!(cost <= 0.1, "multiplicity {cost} over 33 cases");
    let suite = r["suites"][0]["alpha"].as_f64().unwrap();
    assert!(suite <= 0.1 && (suite - cost).abs() < 1e-12, "{suite}");
}

/// The pytest command of docs/runners.md that runs only the cases gate asks for: each line
/// of `$GATE_SUITE_CASES` (`pkg.module::name`) becomes the node id `pkg/module.py::name`.
pub(crate) const PYTEST_FILTERED: &str = r#"python3 -m pytest -q -p no:cacheprovider -p no:randomly -p no:rerunfailures --junitxml="$GATE_JUNIT" $(sed -E 'h;s/::.*//;s#\.#/#g;s/$/.py/;G;s/\n[^:]*::/::/' "$GATE_SUITE_CASES")"#;

/// A real pytest suite whose tests count their own invocations: once `test_down` has FAILed,
/// the later suite runs do not execute it at all.
#[test]
fn a_decided_pytest_test_is_not_executed_again() {
    let f = Fixture::new(&format!(
        "version: 1\nsampling:\n  design: {{healthy: 0.9, regressed: 0.7, rule: sequential}}\ntasks:\n  - id: py\n    suite:\n      run: {}\n      harness_exit_codes: [2, 3, 4, 5]\n",
        serde_json::to_string(PYTEST_FILTERED).unwrap()
    ));
    std::fs::create_dir(f.path("counters")).unwrap();
    std::fs::create_dir(f.path("tests")).unwrap();
    std::fs::write(
        f.path("tests/test_agent.py"),
        r#"import os, pathlib

def bump(name):
    p = pathlib.Path(os.environ["COUNTER_DIR"]) / name
    k = int(p.read_text()) + 1 if p.exists() else 1
    p.write_text(str(k))
    return k

def test_steady():
    bump("steady")

def test_down():
    bump("down")
    assert False, "always fails"
"#,
    )
    .unwrap();
    let out = gate()
        .current_dir(f.dir.path())
        .env("COUNTER_DIR", f.path("counters"))
        .args([
            "run",
            "plan.yaml",
            "--ledger",
            "out/l.jsonl",
            "--no-step-summary",
        ])
        .args(["--json", "out/r.json"])
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(f.path("out/r.json")).unwrap()).unwrap();
    let count = |n: &str| -> u64 {
        std::fs::read_to_string(f.path(&format!("counters/{n}")))
            .unwrap()
            .trim()
            .parse()
            .unwrap()
    };
    let task = |id: &str| {
        r["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|t| t["id"] == id)
            .unwrap()
            .clone()
    };
    let down = task("py/tests.test_agent::test_down");
    let steady = task("py/tests.test_agent::test_steady");
    assert_eq!(down["verdict"], "FAIL");
    assert_eq!(steady["verdict"], "PASS");
    // Executed exactly as often as it was graded, never after its FAIL.
    assert_eq!(count("down"), down["trials"]["run"].as_u64().unwrap());
    assert_eq!(down["trials"]["excluded"], 0);
    assert_eq!(count("steady"), steady["trials"]["run"].as_u64().unwrap());
    assert!(
        count("down") < count("steady"),
        "{} {}",
        count("down"),
        count("steady")
    );
    assert_eq!(
        r["suites"][0]["case_runs"].as_u64().unwrap(),
        count("down") + count("steady")
    );
}
