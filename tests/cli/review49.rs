//! Review 49 (an attack on review 47's fixes), the cases closed after c01 (which is pinned in
//! `review47_caps_inspect.rs`, beside the cap it tests). c02: an Inspect `.eval` whose failing
//! epochs were rewritten to C in `summaries.json` and in the sample members, held now to the
//! members Inspect wrote beside them (the journal) and to the header's accuracy. Each test
//! forges the file from a real fixture (scripts/gen-eval-fixtures.sh) and checks the refusal
//! (exit 2, naming the member), with a control that the fixture itself still reads. Then two
//! of promptfoo's: the streamed reader's skeleton counted from the last file's records, and a
//! row id given twice.

use predicates::prelude::*;

use super::common::gate;
use super::review47_caps_inspect::{edit, fixture, ingest, read_eval, vitest, write_eval};

/// Rewrite every `done` score to C in the members `which` passes: a summaries list (as
/// `summaries.json` and each `_journal/summaries/N.json` hold) or one sample member.
fn all_correct(members: &mut [(String, Vec<u8>)], which: impl Fn(&str) -> bool) {
    edit(members, which, |v| {
        let records: Vec<&mut serde_json::Value> = match v.as_array_mut() {
            Some(list) => list.iter_mut().collect(),
            None => vec![v],
        };
        for r in records {
            r["scores"]["done"]["value"] = serde_json::json!("C");
        }
    });
}

fn summaries_and_samples(name: &str) -> bool {
    name == "summaries.json" || name.starts_with("samples/")
}

#[test]
fn review49_c02_eval_rewritten_in_summaries_and_samples_but_not_its_journal_is_refused() {
    // c02: review 47 (c23) held `summaries.json` to the sample members; a forger who rewrites
    // both (every failing epoch to C) left them agreeing, and the file read PASS. The journal
    // Inspect wrote as the run went (`_journal/summaries/N.json`, one member per flush) still
    // says I. The `max` reducer's header says accuracy 1.0 either way, so only the journal can
    // tell here.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = read_eval(&fixture("inspect/max-reducer.eval"));
    assert!(
        m.iter().any(|(n, _)| n.starts_with("_journal/summaries/")),
        "the real fixture holds a journal"
    );
    all_correct(&mut m, summaries_and_samples);
    let p = dir.path().join("forged.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "20,3"])
        .code(2)
        .stderr(predicate::str::contains(
            "sample `refund` epoch 1: member `_journal/summaries/1.json`",
        ))
        .stderr(predicate::str::contains(
            "(`done`: the journal says I, `summaries.json` and the sample say C)",
        ))
        .stdout(predicate::str::contains("PASS").not());
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");

    // A journal entry for a record the log no longer holds is refused too (the failing
    // epochs cut from summaries and samples, the header's counts lowered to match).
    let mut m = read_eval(&fixture("inspect/max-reducer.eval"));
    m.retain(|(n, _)| n != "samples/refund_epoch_1.json");
    edit(
        &mut m,
        |n| n == "summaries.json",
        |v| {
            v.as_array_mut()
                .expect("summaries")
                .retain(|s| !(s["id"] == "refund" && s["epoch"] == 1))
        },
    );
    edit(
        &mut m,
        |n| n == "header.json",
        |h| {
            h["results"]["total_samples"] = serde_json::json!(59);
            h["eval"]["config"]
                .as_object_mut()
                .expect("config")
                .remove("epochs");
        },
    );
    let p = dir.path().join("cut.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "20,3"])
        .code(2)
        .stderr(predicate::str::contains(
            "member `_journal/summaries/1.json` records sample `refund` epoch 1, which the log's summaries and samples do not",
        ));

    // The control: the fixture repacked, journal and all, reads and is judged.
    let p = dir.path().join("real.eval");
    write_eval(&p, &read_eval(&fixture("inspect/max-reducer.eval")));
    ingest(dir.path(), &p, &["--single", "20,3"])
        .code(1)
        .stdout(predicate::str::contains("agent_eval::refund  FAIL"));
}

#[test]
fn review49_c02_eval_rewritten_everywhere_but_its_header_accuracy_is_refused() {
    // The same forgery carried into the journal too (and the retried epochs' errored attempts
    // removed): only the header's accuracy, 0.722 (13 of 18 epochs, `mean` reducer), is left
    // to say what the records were. Records that give 1.0 under it are refused.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = read_eval(&fixture("inspect/retry-on-error.eval"));
    all_correct(&mut m, |n| {
        summaries_and_samples(n) || n.starts_with("_journal/summaries/")
    });
    edit(
        &mut m,
        |n| n == "summaries.json" || n.starts_with("_journal/summaries/"),
        |v| {
            for s in v.as_array_mut().expect("summaries") {
                s["retries"] = serde_json::json!(0);
            }
        },
    );
    edit(
        &mut m,
        |n| n.starts_with("samples/"),
        |s| {
            s.as_object_mut().expect("sample").remove("error_retries");
        },
    );
    let p = dir.path().join("forged.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "6,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "`header.json` says the `done` scorer's accuracy (mean over each sample's epochs, then over samples) is 0.7222222222222222, but the log's 18 (sample, epoch) records give 1",
        ))
        .stdout(predicate::str::contains("PASS").not());
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");

    // The control: the fixture's own header agrees with its records.
    let p = dir.path().join("real.eval");
    write_eval(&p, &read_eval(&fixture("inspect/retry-on-error.eval")));
    ingest(dir.path(), &p, &["--single", "6,0"])
        .code(1)
        .stdout(predicate::str::contains("agent_eval::cancel  FAIL"));
}

#[test]
fn review49_promptfoo_file_read_after_a_file_at_the_record_cap_is_not_refused() {
    // promptfoo's streamed `results.json` parsed its skeleton (the file without its rows)
    // outside the per-file tally, so it counted on from whatever the previous file of the same
    // `gate ingest` left there. The skeleton holds rows when the file spells `results` with an
    // escape (the scan matches the key's bytes; JSON reads it as `results`): after a Vitest
    // report of exactly 200,000 records, such a file of two rows was refused as past the cap.
    let dir = tempfile::tempdir().expect("tempdir");
    let at = dir.path().join("at.json");
    std::fs::write(&at, vitest(200_000)).expect("write");
    let rows = (0..2)
        .map(|i| {
            format!("{{\"id\":\"r{i}\",\"testIdx\":{i},\"vars\":{{\"a\":{i}}},\"success\":true}}")
        })
        .collect::<Vec<_>>()
        .join(",");
    let pf = dir.path().join("p.json");
    std::fs::write(
        &pf,
        format!(
            "{{\"evalId\":\"e\",\"results\":{{\"re\\u0073ults\":[{rows}],\"stats\":{{\"successes\":2,\"failures\":0}}}}}}"
        ),
    )
    .expect("write");
    // The two files hold other tests, so each run lacks the other's: a FAIL, but a verdict.
    gate()
        .arg("ingest")
        .arg(&at)
        .arg(&pf)
        .args(["--single", "1,0", "--assume-retries-off", "--ledger"])
        .arg(dir.path().join("l.jsonl"))
        .assert()
        .code(1)
        .stderr(predicate::str::contains("more than 200000").not());
    // Alone, the escaped file reads as promptfoo's, both rows passing.
    ingest(
        dir.path(),
        &pf,
        &["--single", "1,0", "--assume-retries-off"],
    )
    .code(0)
    .stdout(predicate::str::contains("PASS"));
}

#[test]
fn review49_promptfoo_row_id_given_twice_is_refused() {
    // promptfoo gives every row its own id. Its `.jsonl` has no totals, so each failing row
    // replaced by a copy of a passing row of the same test (its `testIdx` kept, so no gap
    // and every test still has its 20 rows) read as a run that passed everything: the copies
    // were counted, their shared id once.
    let dir = tempfile::tempdir().expect("tempdir");
    let real = fixture("promptfoo/results.jsonl");
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&real)
        .expect("fixture")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    let passing_of = |desc: &serde_json::Value| {
        rows.iter()
            .find(|r| r["testCase"]["description"] == *desc && r["success"] == true)
            .cloned()
            .expect("a passing row of each test")
    };
    let forged: Vec<String> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            if r["success"] == false {
                let idx = r["testIdx"].clone();
                r = passing_of(&r["testCase"]["description"]);
                r["testIdx"] = idx;
            }
            r.to_string()
        })
        .collect();
    let p = dir.path().join("forged.jsonl");
    std::fs::write(&p, forged.join("\n") + "\n").expect("write");
    ingest(
        dir.path(),
        &p,
        &["--single", "20,3", "--assume-retries-off"],
    )
    .code(2)
    .stderr(predicate::str::contains("two rows have the id `"))
    .stderr(predicate::str::contains(
        "promptfoo gives every row its own",
    ))
    .stdout(predicate::str::contains("PASS").not());
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");

    // The control: the real `.jsonl`, every id once, reads and is judged.
    ingest(
        dir.path(),
        &real,
        &["--single", "20,3", "--assume-retries-off"],
    )
    .code(1)
    .stdout(predicate::str::contains("cancel"));
}

#[test]
fn rev50d_10_eval_retries_removed_from_summaries_and_samples_but_not_its_journal_is_refused() {
    // Review 50 (rev50d 10): `refund`'s epochs 1 and 4 errored first and were retried; the
    // `retries` key deleted from `summaries.json` and the samples' `error_retries` emptied,
    // the journal left as Inspect wrote it. The journal's count was compared only where both
    // sides gave one, so the errored first attempts were gone and the file read PASS.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = read_eval(&fixture("inspect/retry-on-error.eval"));
    assert!(
        m.iter().any(|(n, _)| n.starts_with("_journal/summaries/")),
        "the real fixture holds a journal"
    );
    edit(
        &mut m,
        |n| n == "summaries.json",
        |v| {
            for s in v.as_array_mut().expect("summaries") {
                s.as_object_mut().expect("summary").remove("retries");
            }
        },
    );
    edit(
        &mut m,
        |n| n.starts_with("samples/"),
        |s| s["error_retries"] = serde_json::json!([]),
    );
    let p = dir.path().join("forged.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "6,1"])
        .code(2)
        .stderr(predicate::str::contains("sample `refund` epoch "))
        .stderr(predicate::str::contains("member `_journal/summaries/"))
        .stderr(predicate::str::contains(
            "errored attempt(s), `summaries.json` and the sample 0)",
        ))
        .stdout(predicate::str::contains("PASS").not());
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");

    // rev50e 06: the same, and the journal's entries given an `error_retries: []` beside
    // Inspect's own `retries`: the journal counted the added key and read 0. Its larger
    // count is what it says.
    edit(
        &mut m,
        |n| n.starts_with("_journal/summaries/"),
        |v| {
            for s in v.as_array_mut().expect("journal") {
                s["error_retries"] = serde_json::json!([]);
            }
        },
    );
    let p = dir.path().join("forged-journal.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "6,1"])
        .code(2)
        .stderr(predicate::str::contains("member `_journal/summaries/"))
        .stdout(predicate::str::contains("PASS").not());

    // The control: the fixture itself, its retries counted everywhere, reads: refund FAILs.
    let p = dir.path().join("real.eval");
    write_eval(&p, &read_eval(&fixture("inspect/retry-on-error.eval")));
    ingest(dir.path(), &p, &["--single", "6,1"])
        .code(1)
        .stdout(predicate::str::contains("refund  FAIL"));
}

#[test]
fn rev50d_20_promptfoo_row_without_an_id_is_refused() {
    // Review 50 (rev50d 20): a row with no `id` skipped the check that refuses one id twice,
    // so each failing row of the `.jsonl` replaced by a copy of a passing row of its test,
    // the copy's `id` deleted, read as a run that passed everything. Every row of every real
    // promptfoo file has an id: a row without one is refused.
    let dir = tempfile::tempdir().expect("tempdir");
    let real = fixture("promptfoo/results.jsonl");
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&real)
        .expect("fixture")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("row"))
        .collect();
    assert!(
        rows.iter()
            .all(|r| r["id"].as_str().is_some_and(|i| !i.is_empty()))
    );
    let passing_of = |desc: &serde_json::Value| {
        rows.iter()
            .find(|r| r["testCase"]["description"] == *desc && r["success"] == true)
            .cloned()
            .expect("a passing row of each test")
    };
    let mut first_forged = None;
    let forged: Vec<String> = rows
        .iter()
        .enumerate()
        .map(|(n, r)| {
            let mut r = r.clone();
            if r["success"] == false {
                let idx = r["testIdx"].clone();
                r = passing_of(&r["testCase"]["description"]);
                r["testIdx"] = idx;
                r.as_object_mut().expect("row").remove("id");
                first_forged.get_or_insert(n + 1);
            }
            r.to_string()
        })
        .collect();
    let line = first_forged.expect("the fixture has failing rows");
    let p = dir.path().join("forged.jsonl");
    std::fs::write(&p, forged.join("\n") + "\n").expect("write");
    ingest(
        dir.path(),
        &p,
        &["--single", "20,3", "--assume-retries-off"],
    )
    .code(2)
    .stderr(predicate::str::contains(format!(
        "the promptfoo row at line {line} has no `id`"
    )))
    .stdout(predicate::str::contains("PASS").not());
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");

    // In `results.json` too, and an empty id is none.
    let mut json: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(fixture("promptfoo/results.json")).expect("fixture"),
    )
    .expect("json");
    json["results"]["results"][2]["id"] = serde_json::json!("");
    let p = dir.path().join("forged.json");
    std::fs::write(&p, json.to_string()).expect("write");
    ingest(
        dir.path(),
        &p,
        &["--single", "20,3", "--assume-retries-off"],
    )
    .code(2)
    .stderr(predicate::str::contains(
        "the promptfoo row 3 of `results.results`",
    ));
}
