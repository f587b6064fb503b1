//! Ledgers written by earlier versions of `gate` still replay, verify and explain themselves
//! with the very sentences they recorded. The fixtures in `tests/fixtures/ledgers/` were
//! written by `gate` at d43c2df (before every rule decided through its lattice); see the
//! README there for how to write them again.

use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use gate::ledger::Ledger;
use predicates::prelude::*;

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ledgers");
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no fixture ledgers in {}", dir.display());
    out
}

#[test]
fn old_ledgers_replay_to_their_recorded_decisions_byte_for_byte() {
    let mut checked = 0;
    for path in fixtures() {
        let ledger = Ledger::read(&path).unwrap();
        let recorded: Vec<_> = ledger.decisions().cloned().collect();
        let replayed = gate::report::replay::replay(std::slice::from_ref(&ledger)).unwrap();
        for d in &recorded {
            let task = replayed
                .tasks
                .iter()
                .find(|t| t.spec.id == d.task)
                .unwrap_or_else(|| panic!("{}: task `{}` not replayed", path.display(), d.task));
            assert_eq!(task.verdict, d.verdict, "{}: {}", path.display(), d.task);
            assert_eq!(task.reason, d.reason, "{}: {}", path.display(), d.task);
            assert_eq!(task.counts, d.counts, "{}: {}", path.display(), d.task);
            checked += 1;
        }
    }
    // Every rule reaching every verdict: single, Wald and calibrated; PASS, FAIL and
    // INCONCLUSIVE (a truncation and a spent budget).
    assert!(checked >= 9, "only {checked} decisions in the fixtures");
}

#[test]
fn old_ledgers_verify_and_report() {
    for path in fixtures() {
        cargo_bin_cmd!("gate")
            .arg("verify")
            .arg(&path)
            .assert()
            .code(0)
            .stdout(predicate::str::contains("decision"));
        cargo_bin_cmd!("gate")
            .arg("report")
            .arg(&path)
            .arg("--no-step-summary")
            .assert()
            // The fixtures' plan has FAILing tasks: the report recomputes the red gate.
            .code(1)
            .stdout(predicate::str::contains("wald-truncated"));
    }
}

/// Every float of `got` equals `want`'s to 1e-12 relative; everything else exactly.
fn assert_json_close(got: &serde_json::Value, want: &serde_json::Value, at: &str) {
    use serde_json::Value;
    match (got, want) {
        (Value::Number(x), Value::Number(y)) if x.is_f64() || y.is_f64() => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            assert!(
                (x - y).abs() <= 1e-12 * y.abs().max(1e-300),
                "{at}: {x} vs {y}"
            );
        }
        (Value::Array(x), Value::Array(y)) => {
            assert_eq!(x.len(), y.len(), "{at}");
            for (i, (a, b)) in x.iter().zip(y).enumerate() {
                assert_json_close(a, b, &format!("{at}[{i}]"));
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            // A field added since (the contract allows it without a bump) is null (or an
            // empty list) for an old ledger: e.g. `pairs` and `compare`, which only compare
            // tasks fill, and `suites`, which only suite tasks fill.
            let added = |k: &String| {
                !y.contains_key(k) && (x[k].is_null() || x[k].as_array().is_some_and(Vec::is_empty))
            };
            assert_eq!(
                x.keys().filter(|k| !added(k)).collect::<Vec<_>>(),
                y.keys().collect::<Vec<_>>(),
                "{at}"
            );
            for (k, a) in x.iter().filter(|(k, _)| !added(k)) {
                assert_json_close(a, &y[k], &format!("{at}.{k}"));
            }
        }
        _ => assert_eq!(got, want, "{at}"),
    }
}

/// The reports of an old ledger are what the old `gate` printed: the terminal summary, the
/// JUnit and the Markdown byte for byte; the JSON to the last digits (a single plan's
/// P(FAIL) is now the binomial tail itself, not 1 - P(PASS), which moves the 16th digit).
#[test]
fn old_ledgers_report_what_the_old_gate_printed() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ledgers");
    let want = dir.join("rules.d43c2df");
    let out = tempfile::tempdir().unwrap();
    let o = |name: &str| out.path().join(name);
    let run = cargo_bin_cmd!("gate")
        .current_dir(&dir)
        .args(["report", "rules.jsonl", "--no-step-summary", "--json"])
        .arg(o("report.json"))
        .arg("--junit")
        .arg(o("junit.xml"))
        .arg("--summary")
        .arg(o("summary.md"))
        .assert()
        .code(1);
    // Changed since on purpose (issue 30): the multiplicity line is labelled as the bound it
    // is. The same figure over the same tasks; every other byte is what the old gate printed.
    const BOUND: &str = "a bound for independent tasks at or above their healthy rates, reached only if each is exactly at it";
    let as_old = |s: String| {
        s.replace(
            "P(a healthy suite fails somewhere) ≤ ",
            "P(a healthy suite fails somewhere) = ",
        )
        .replace(&format!(" tasks: {BOUND} (αᵢ"), " tasks (αᵢ")
        .replace(
            "fails somewhere with probability at most ",
            "fails somewhere with probability ",
        )
        .replace(&format!("; {BOUND}); unknown"), "); unknown")
    };
    let text = as_old(String::from_utf8(run.get_output().stdout.clone()).unwrap());
    let read = |p: PathBuf| std::fs::read_to_string(p).unwrap();
    assert_eq!(text, read(want.join("report.txt")));
    assert_eq!(
        read(o("junit.xml")),
        read(want.join("junit.xml")),
        "junit.xml"
    );
    // Added since (issue 20): each task's indifference-zone line and the blank line after
    // it, outside the fold. Every line the old gate printed is unchanged.
    let mut summary = String::new();
    let mut after_zone = false;
    for line in as_old(read(o("summary.md"))).split_inclusive('\n') {
        if line.starts_with("**Zone:** ") {
            after_zone = true;
            continue;
        }
        if !std::mem::take(&mut after_zone) || line != "\n" {
            summary.push_str(line);
        }
    }
    assert_eq!(summary, read(want.join("summary.md")), "summary.md");
    let json = |p: PathBuf| serde_json::from_str::<serde_json::Value>(&read(p)).unwrap();
    // Fields added to the contract since (additive): `decision` is the verdict of a run that
    // is not staged, and `stages` is null. Every field the old gate printed is unchanged.
    let mut got = json(o("report.json"));
    let added = got.as_object_mut().unwrap();
    assert_eq!(added.remove("decision"), Some(serde_json::json!("FAIL")));
    assert_eq!(added.remove("stages"), Some(serde_json::Value::Null));
    for t in added["tasks"].as_array_mut().unwrap() {
        let zone = t["plan"].as_object_mut().unwrap().remove("zone");
        assert!(zone.is_some_and(|z| z.is_null() || z["text"].is_string()));
    }
    assert_json_close(&got, &json(want.join("report.json")), "report");
}
