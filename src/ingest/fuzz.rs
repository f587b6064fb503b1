//! Fuzzing every reader over mutations of its real fixtures (issue 29, "A reader never turns a
//! failure into a pass" and "Fuzzing in CI"). Run by `cargo test --release --all-targets`.
//!
//! Each fixture holds a known failing record. A mutation may change anything in the file but
//! that record's evidence of failure (its `<testcase>` element, its `"status": "failed"`, its
//! entry in mocha's `failures[]`, its score): keys are deleted, values replaced with hostile
//! ones (`4000000000`, `{}`, `"passed"`, `"CancelledError: x"`), array items duplicated, lines
//! deleted, duplicated, swapped, inserted or the file cut short. Whatever the mutation, the
//! reader
//!
//! - never panics (a panic fails the property);
//! - allocates within the stated bound: no trial holds more than [`MAX_COUNT`] + 1 attempts
//!   (a count over the cap is refused before anything is allocated, so a hostile count
//!   aborts the test process if it is not), and no file more than
//!   [`MAX_RETRIES_PER_FILE`](super::MAX_RETRIES_PER_FILE) attempts after the first or
//!   [`MAX_CASES_PER_FILE`](super::MAX_CASES_PER_FILE) trials;
//! - never turns the failure into a pass: when it reads the file, and reads the protected
//!   record's test under its id, at least one of that test's first attempts is not a pass
//!   (and whatever it reads, not every first attempt is a pass). A plain test checks that each
//!   unmutated fixture does read that test with a failing first attempt, so the property is
//!   never vacuous.
//!
//! Across files (issue 29 review, B5): whichever runs of a suite lose a test's records, the
//! test keeps one trial per run in its run's place, and each run without it is a failure.

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::Value;

use super::{Format, MAX_COUNT, Options, read_run};

fn fixture(rel: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Read `bytes` as `format` through the one entry point `gate ingest` uses, and check the
/// properties. `Err` carries what was violated.
fn check(bytes: &[u8], format: Format, opts: &Options, failing: &str) -> Result<(), String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let path: PathBuf = dir.path().join("mutated");
    std::fs::write(&path, bytes).map_err(|e| e.to_string())?;
    let opts = Options {
        format: Some(format),
        ..opts.clone()
    };
    let Ok(run) = read_run(&path, &opts) else {
        return Ok(());
    };
    if let Some(t) = run
        .trials
        .iter()
        .find(|t| t.attempts.len() as u64 > MAX_COUNT + 1)
    {
        return Err(format!("{}: {} attempts", t.test, t.attempts.len()));
    }
    let later: u64 = run.trials.iter().map(|t| t.attempts.len() as u64 - 1).sum();
    if later > super::MAX_RETRIES_PER_FILE || run.trials.len() as u64 > super::MAX_CASES_PER_FILE {
        return Err(format!(
            "{} trials, {later} attempts after the first: over the per-file caps",
            run.trials.len()
        ));
    }
    let of_failing: Vec<_> = run.trials.iter().filter(|t| t.test == failing).collect();
    if !of_failing.is_empty() && of_failing.iter().all(|t| t.attempts[0].passed) {
        return Err(format!("`{failing}`: every first attempt read as a pass"));
    }
    if !run.trials.is_empty() && run.trials.iter().all(|t| t.attempts[0].passed) {
        return Err(format!(
            "every first attempt read as a pass: {:?}",
            run.trials.iter().map(|t| &t.test).collect::<Vec<_>>()
        ));
    }
    Ok(())
}

// --- JSON mutations ---------------------------------------------------------------------

/// Hostile values a mutation writes.
fn palette(i: usize) -> Value {
    let all = [
        Value::Null,
        serde_json::json!({}),
        serde_json::json!([]),
        serde_json::json!(""),
        serde_json::json!(0),
        serde_json::json!(1),
        serde_json::json!(-1),
        serde_json::json!(4_000_000_000u64),
        serde_json::json!(1e300),
        serde_json::json!(true),
        serde_json::json!(false),
        serde_json::json!("passed"),
        serde_json::json!("failed"),
        serde_json::json!("success"),
        serde_json::json!("CancelledError: x"),
        serde_json::json!("C"),
        serde_json::json!({"message": ""}),
        serde_json::json!(["x"]),
    ];
    all[i % all.len()].clone()
}

/// Keys a mutation may add.
const KEYS: &[&str] = &[
    "err",
    "status",
    "invocations",
    "retries",
    "currentRetry",
    "error",
    "error_retries",
    "wasInterrupted",
    "pending",
    "startTime",
    "success",
    "cached",
    "retry",
    "x",
];

/// Every JSON pointer in `v`.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                pointers(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                pointers(x, format!("{at}/{i}"), out);
            }
        }
        _ => {}
    }
    out.push(at);
}

/// Whether changing or removing `q` would touch a protected pointer.
fn touches(q: &str, protected: &[&str]) -> bool {
    protected
        .iter()
        .any(|p| *p == q || p.starts_with(&format!("{q}/")))
}

/// One mutation: (which pointer, which operation, which value, which key).
type Op = (usize, u8, usize, usize);

fn mutate_json(doc: &mut Value, op: Op, protected: &[&str]) {
    let (which, kind, value, key) = op;
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    let q = &all[which % all.len()];
    if q.is_empty() {
        return;
    }
    let (parent, last) = q.rsplit_once('/').expect("a non-root pointer has a parent");
    match kind % 4 {
        // Replace the value.
        0 if !touches(q, protected) => {
            if let Some(x) = doc.pointer_mut(q) {
                *x = palette(value);
            }
        }
        // Remove it, unless that would move or remove a protected item.
        // Remove it; an array item only from an array that holds no protected item, whose
        // index would move.
        1 if !touches(q, protected)
            && (matches!(doc.pointer(parent), Some(Value::Object(_)))
                || !touches(parent, protected)) =>
        {
            match doc.pointer_mut(parent) {
                Some(Value::Object(m)) => {
                    m.remove(&last.replace("~1", "/").replace("~0", "~"));
                }
                Some(Value::Array(a)) => {
                    if let Ok(i) = last.parse::<usize>()
                        && i < a.len()
                    {
                        a.remove(i);
                    }
                }
                _ => {}
            }
        }
        // Add a key to an object.
        2 => {
            let k = KEYS[key % KEYS.len()];
            if !touches(&format!("{q}/{k}"), protected)
                && let Some(Value::Object(m)) = doc.pointer_mut(q)
            {
                m.insert(k.to_string(), palette(value));
            }
        }
        // Append a copy of an array item (the indices before it stay put).
        3 => {
            if let Some(Value::Array(a)) = doc.pointer_mut(parent)
                && let Ok(i) = last.parse::<usize>()
                && i < a.len()
            {
                let copy = a[i].clone();
                a.push(copy);
            }
        }
        _ => {}
    }
}

fn json_case(
    rel: &str,
    format: Format,
    protected: &[&str],
    failing: &str,
    opts: &Options,
    ops: &[Op],
) {
    // Inspect's JSON logs hold bare `NaN`, which serde_json does not read: as null.
    let text = String::from_utf8(fixture(rel)).expect("utf-8");
    let mut doc: Value =
        serde_json::from_str(&super::json_nan::to_null(&text)).expect("fixture is JSON");
    for op in ops {
        mutate_json(&mut doc, *op, protected);
    }
    let text = serde_json::to_vec_pretty(&doc).expect("serialises");
    if let Err(why) = check(&text, format, opts, failing) {
        panic!("{rel} after {ops:?}: {why}");
    }
}

// --- line mutations (JUnit XML, `go test -json`) ----------------------------------------

/// One line mutation: (which line, operation, another line, junk).
type LineOp = (usize, u8, usize, usize);

fn mutate_lines(
    lines: &mut Vec<String>,
    op: LineOp,
    protected: &dyn Fn(&str) -> bool,
    junk: &[&str],
) {
    if lines.is_empty() {
        return;
    }
    let (a, kind, b, j) = op;
    let (a, b) = (a % lines.len(), b % lines.len());
    match kind % 5 {
        0 if !protected(&lines[a]) => {
            lines.remove(a);
        }
        // A copy of any line, protected ones too, elsewhere.
        1 => {
            let copy = lines[a].clone();
            lines.insert(b, copy);
        }
        2 if !protected(&lines[a]) && !protected(&lines[b]) => lines.swap(a, b),
        3 => lines.insert(b, junk[j % junk.len()].to_string()),
        // Cut the file short (only after the protected record, which must stay whole).
        4 if !lines[a..].iter().any(|l| protected(l)) => lines.truncate(a),
        _ => {}
    }
}

/// The lines of a JUnit fixture, the failing `<testcase>` element folded into one line so
/// that it is kept whole.
fn junit_lines(text: &str, failing: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if line.contains(failing) {
            inside = true;
            out.push(String::new());
        }
        if inside {
            let last = out.last_mut().expect("pushed");
            last.push_str(line);
            last.push('\n');
            if line.trim_start().starts_with("</testcase>") {
                inside = false;
            }
        } else {
            out.push(line.to_string());
        }
    }
    out
}

const JUNIT_JUNK: &[&str] = &[
    "<testcase name=\"tests::cancel\" classname=\"agentsuite\" time=\"0.1\"/>",
    "<testcase name=\"tests::lookup\" classname=\"agentsuite\"/>",
    "</testcase>",
    "<skipped/>",
    "<flakyFailure message=\"x\"/>",
    "<properties><property name=\"invocations\" value=\"4000000000\"/></properties>",
    "<properties><property name=\"invocations\" value=\"18446744073709551616\"/></properties>",
    "<properties><property name=\"invocations\" value=\"3\"/><property name=\"invocations\" value=\"1\"/></properties>",
    "</testsuite>",
    "<testsuite name=\"x\">",
    "&lol;",
    "<![CDATA[ ]]>",
];

const GO_JUNK: &[&str] = &[
    r#"{"Action":"pass","Package":"example.com/agent","Test":"TestCancel","Elapsed":0}"#,
    r#"{"Action":"run","Package":"example.com/agent","Test":"TestCancel"}"#,
    r#"{"Action":"skip","Package":"example.com/agent","Test":"TestCancel"}"#,
    r#"{"Action":"pass","Package":"example.com/agent"}"#,
    r#"{"Action":"fail","Package":"example.com/agent"}"#,
    r#"{"Action":"output","Package":"example.com/agent","Test":"TestCancel","Output":"--- PASS\n"}"#,
    "not json",
    "",
];

fn ops(n: usize) -> impl Strategy<Value = Vec<(usize, u8, usize, usize)>> {
    prop::collection::vec(
        (any::<usize>(), any::<u8>(), any::<usize>(), any::<usize>()),
        1..n,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn junit_nextest_mutations_never_turn_the_failure_into_a_pass(ops in ops(6)) {
        let text = String::from_utf8(fixture("junit/nextest-runs/run-01.xml")).expect("utf-8");
        let mut lines = junit_lines(&text, "name=\"tests::cancel\"");
        let protected = |l: &str| l.contains("name=\"tests::cancel\"") && l.contains("<failure");
        for op in &ops {
            mutate_lines(&mut lines, *op, &protected, JUNIT_JUNK);
        }
        let mutated = lines.join("\n");
        if let Err(why) = check(mutated.as_bytes(), Format::Junit, &Options::default(), "agentsuite::tests::cancel") {
            panic!("after {ops:?}: {why}\n{mutated}");
        }
    }

    #[test]
    fn go_json_mutations_never_turn_the_failure_into_a_pass(ops in ops(6)) {
        let text = String::from_utf8(fixture("evals/go/count-40.json")).expect("utf-8");
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        let protected = |l: &str| l.contains("\"Test\":\"TestCancel\"");
        for op in &ops {
            mutate_lines(&mut lines, *op, &protected, GO_JUNK);
        }
        let mutated = lines.join("\n");
        if let Err(why) = check(mutated.as_bytes(), Format::GoJson, &Options::default(), "example.com/agent::TestCancel") {
            panic!("after {ops:?}: {why}");
        }
    }

    #[test]
    fn mocha_json_mutations_never_turn_the_failure_into_a_pass(ops in ops(5)) {
        json_case("js-json/mocha-runs/run-1.json", Format::MochaJson, &["/failures/0"], "agent.test.js::agent cancel", &Options::default(), &ops);
    }

    #[test]
    fn jest_json_mutations_never_turn_the_failure_into_a_pass(ops in ops(5)) {
        json_case(
            "js-json/jest-runs/run-1.json",
            Format::JestJson,
            &["/testResults/0/assertionResults/2/status"],
            "agent.test.js::agent > cancel",
            &Options::default(),
            &ops,
        );
    }

    #[test]
    fn playwright_json_mutations_never_turn_the_failure_into_a_pass(ops in ops(5)) {
        let t = "/suites/0/suites/0/specs/1/tests/0";
        json_case(
            "js-json/playwright-retries.json",
            Format::PlaywrightJson,
            &[
                &format!("{t}/expectedStatus"),
                &format!("{t}/results/0/status"),
                &format!("{t}/results/0/retry"),
            ],
            "agent.spec.js::agent › refund",
            &Options::default(),
            &ops,
        );
    }

    #[test]
    fn inspect_json_mutations_never_turn_the_failure_into_a_pass(ops in ops(5)) {
        json_case(
            "evals/inspect/two-scorers.json",
            Format::Inspect,
            &["/samples/2/scores/done/value"],
            "agent_eval::refund",
            &Options { scorer: Some("done".into()), ..Options::default() },
            &ops,
        );
    }

    #[test]
    fn promptfoo_mutations_never_turn_the_failure_into_a_pass(ops in ops(5)) {
        json_case(
            "evals/promptfoo/results.json",
            Format::Promptfoo,
            &["/results/results/20/success"],
            "refund",
            &Options::default(),
            &ops,
        );
    }

    #[test]
    fn deepeval_mutations_never_turn_the_failure_into_a_pass(ops in ops(5)) {
        json_case(
            "evals/deepeval/test_run.json",
            Format::Deepeval,
            &["/testCases/20/success"],
            "test_agent::test_agent[refund]",
            &Options::default(),
            &ops,
        );
    }
}

/// Each fixture, unmutated, reads its protected record's test with a failing first attempt:
/// the property above is about that test, so it must be there to begin with.
/// `text` without the element that starts with `start` (self-closing, or up to its
/// `</testcase>`).
fn without_record(text: &str, start: &str) -> String {
    let a = text.find(start).expect("the record");
    let tag_end = a + text[a..].find('>').expect("a tag end");
    let end = if text[..tag_end].ends_with('/') {
        tag_end + 1
    } else {
        tag_end + text[tag_end..].find("</testcase>").expect("its end") + "</testcase>".len()
    };
    format!("{}{}", &text[..a], &text[end..])
}

/// `text` without the `tests`, `failures` and `errors` attributes of any element.
fn without_totals(text: &str) -> String {
    let mut text = text.to_string();
    for key in [" tests=\"", " failures=\"", " errors=\""] {
        while let Some(a) = text.find(key) {
            let end = a + key.len() + text[a + key.len()..].find('"').expect("a closing quote") + 1;
            text.replace_range(a..end, "");
        }
    }
    text
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    /// B5: the nextest runs with the failing test's records cut from any of them (as a crash
    /// would leave them): the test keeps one trial per run, in its run's place, and each run
    /// that lost it is a failure, so no later pass slides to an earlier ordinal.
    #[test]
    fn a_test_cut_from_any_runs_keeps_one_failing_trial_in_each_of_their_places(cut in prop::collection::vec(any::<bool>(), 10)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let test = "agentsuite::tests::cancel";
        let mut runs = Vec::new();
        for (i, cut) in cut.iter().enumerate() {
            let text = String::from_utf8(fixture(&format!("junit/nextest-runs/run-{:02}.xml", i + 1))).expect("utf-8");
            // A file cut by a crash records no totals for what it lost; the totals a writer
            // declares are checked against the records (review 7, c14), so they go too.
            let text = if *cut { without_totals(&without_record(&text, "<testcase name=\"tests::cancel\"")) } else { text };
            let path = dir.path().join(format!("run-{:02}.xml", i + 1));
            std::fs::write(&path, text).expect("write");
            runs.push(read_run(&path, &Options::default()).expect("reads"));
        }
        let h = super::histories(runs);
        if cut.iter().all(|c| *c) {
            prop_assert!(h.iter().all(|h| h.test != test));
        } else {
            let h = h.iter().find(|h| h.test == test).expect("the test");
            prop_assert_eq!(h.trials.len(), cut.len());
            for (k, cut) in cut.iter().enumerate() {
                prop_assert_eq!(h.places[k], (k, 0));
                if *cut {
                    prop_assert!(!h.trials[k][0].passed, "run {} lost the test but passed", k + 1);
                }
            }
        }
    }
}

#[test]
fn every_fuzzed_fixture_reads_its_failing_record() {
    let cases: &[(&str, Format, &str, Option<&str>)] = &[
        (
            "junit/nextest-runs/run-01.xml",
            Format::Junit,
            "agentsuite::tests::cancel",
            None,
        ),
        (
            "evals/go/count-40.json",
            Format::GoJson,
            "example.com/agent::TestCancel",
            None,
        ),
        (
            "js-json/mocha-runs/run-1.json",
            Format::MochaJson,
            "agent.test.js::agent cancel",
            None,
        ),
        (
            "js-json/jest-runs/run-1.json",
            Format::JestJson,
            "agent.test.js::agent > cancel",
            None,
        ),
        (
            "js-json/playwright-retries.json",
            Format::PlaywrightJson,
            "agent.spec.js::agent › refund",
            None,
        ),
        (
            "evals/inspect/two-scorers.json",
            Format::Inspect,
            "agent_eval::refund",
            Some("done"),
        ),
        (
            "evals/promptfoo/results.json",
            Format::Promptfoo,
            "refund",
            None,
        ),
        (
            "evals/deepeval/test_run.json",
            Format::Deepeval,
            "test_agent::test_agent[refund]",
            None,
        ),
    ];
    for (rel, format, failing, scorer) in cases {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("fixture");
        std::fs::write(&path, fixture(rel)).expect("write");
        let opts = Options {
            format: Some(*format),
            scorer: scorer.map(str::to_string),
            ..Options::default()
        };
        let run = read_run(&path, &opts).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(
            run.trials
                .iter()
                .any(|t| t.test == *failing && !t.attempts[0].passed),
            "{rel}: no failing first attempt of `{failing}`"
        );
    }
}
