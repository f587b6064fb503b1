//! Review 47, caps and Inspect: the JSON readers' per-file record cap (c10), and an Inspect
//! `.eval` whose `summaries.json` is held to the sample members beside it (c06, c23). Each
//! test builds the smallest file that showed the break and checks that gate refuses it
//! (exit 2, naming what it refused), with a control that an honest file still reads.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use predicates::prelude::*;

use super::common::gate;

pub(super) fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/evals")
        .join(rel)
}

/// The members of a real `.eval` (zstd, as Inspect writes them), decompressed, in order.
pub(super) fn read_eval(path: &Path) -> Vec<(String, Vec<u8>)> {
    let bytes = std::fs::read(path).expect("read .eval");
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("zip");
    (0..zip.len())
        .map(|i| {
            let raw = zip.by_index_raw(i).expect("member");
            let name = raw.name().expect("member name").into_owned();
            let mut out = Vec::new();
            if raw.compression() == zip::CompressionMethod::ZSTD {
                ruzstd::decoding::StreamingDecoder::new(raw)
                    .expect("zstd")
                    .read_to_end(&mut out)
                    .expect("decompress");
            } else {
                let mut raw = raw;
                raw.read_to_end(&mut out).expect("stored");
            }
            (name, out)
        })
        .collect()
}

/// Write `members` as a `.eval` with stored members (which Inspect and gate both read).
pub(super) fn write_eval(path: &Path, members: &[(String, Vec<u8>)]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).expect("create"));
    let opts =
        zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
    for (name, data) in members {
        zip.start_file(name.as_str(), opts).expect("start");
        zip.write_all(data).expect("write");
    }
    zip.finish().expect("finish");
}

/// Edit the JSON of every member whose name passes `which`.
pub(super) fn edit(
    members: &mut [(String, Vec<u8>)],
    which: impl Fn(&str) -> bool,
    f: impl Fn(&mut serde_json::Value),
) {
    for (_, data) in members.iter_mut().filter(|(n, _)| which(n)) {
        let mut v: serde_json::Value = serde_json::from_slice(data).expect("json member");
        f(&mut v);
        *data = serde_json::to_vec(&v).expect("json");
    }
}

pub(super) fn ingest(dir: &Path, file: &Path, args: &[&str]) -> assert_cmd::assert::Assert {
    gate()
        .arg("ingest")
        .arg(file)
        .args(args)
        .arg("--ledger")
        .arg(dir.join("l.jsonl"))
        .assert()
}

#[test]
fn review47_c06_eval_epochs_served_from_the_cache_are_refused_with_summaries_json() {
    // c06: every real `.eval` has `summaries.json`, which gate read instead of the sample
    // members; summaries carry no events, so a model event with `cache: read` was never seen
    // and the replayed epochs passed. Only the transcripts say it: the summaries are as written.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = read_eval(&fixture("inspect/max-reducer.eval"));
    edit(
        &mut m,
        |n| n == "samples/lookup_epoch_3.json",
        |s| {
            s["events"]
                .as_array_mut()
                .expect("events")
                .push(serde_json::json!({
                    "event": "model", "model": "openai/gpt-4o", "cache": "read", "input": [],
                    "output": {"model": "openai/gpt-4o", "choices": []}
                }))
        },
    );
    let p = dir.path().join("cached.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "20,19"])
        .code(2)
        .stderr(predicate::str::contains(
            "sample `lookup` epoch 3: its model output was read from Inspect's cache",
        ));
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");

    // The control: the same log re-packed without the edit still reads and is judged.
    let p = dir.path().join("real.eval");
    write_eval(&p, &read_eval(&fixture("inspect/max-reducer.eval")));
    ingest(dir.path(), &p, &["--single", "20,3"])
        .code(1)
        .stdout(predicate::str::contains("agent_eval::refund  FAIL"));
}

#[test]
fn review47_c23_eval_summary_that_says_c_where_its_sample_says_i_is_refused() {
    // c23 (b): `summaries.json` gives every epoch "C" while the sample members still say "I":
    // gate graded the summaries, and the failing samples passed.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = read_eval(&fixture("inspect/max-reducer.eval"));
    edit(
        &mut m,
        |n| n == "summaries.json",
        |v| {
            for s in v.as_array_mut().expect("summaries") {
                s["scores"] = serde_json::json!({"done": {"value": "C", "history": []}});
            }
        },
    );
    let p = dir.path().join("flipped.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "20,3"])
        .code(2)
        .stderr(predicate::str::contains("sample `refund` epoch 1:"))
        .stderr(predicate::str::contains(
            "`summaries.json` and its member `samples/refund_epoch_1.json` disagree (`done`: the summary says C, the sample says I)",
        ));
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");
}

#[test]
fn review47_c23_eval_summary_that_hides_a_retry_is_refused() {
    // A summary's `retries` set to 0 where its sample's `error_retries` holds the errored
    // first attempt: read from the summary alone, the retry's score would grade the epoch.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = read_eval(&fixture("inspect/retry-on-error.eval"));
    edit(
        &mut m,
        |n| n == "summaries.json",
        |v| {
            for s in v.as_array_mut().expect("summaries") {
                s["retries"] = serde_json::json!(0);
            }
        },
    );
    let p = dir.path().join("no-retries.eval");
    write_eval(&p, &m);
    ingest(dir.path(), &p, &["--single", "6,5"])
        .code(2)
        .stderr(predicate::str::contains(
            "errored attempt(s), the sample holds",
        ));
}

#[test]
fn review47_c23_eval_sample_member_without_its_summary_is_refused() {
    // c23 (a, c): `summaries.json` cut to the passing epochs, and the header's counts it is
    // checked against (`results.total_samples`, `eval.config.epochs`) lowered or removed to
    // match, the failing epochs still in `samples/`: judged on what was left, a PASS. Refused
    // for the member without a summary, whatever the header says.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut m = read_eval(&fixture("inspect/max-reducer.eval"));
    edit(
        &mut m,
        |n| n == "summaries.json",
        |v| {
            v.as_array_mut()
                .expect("summaries")
                .retain(|s| s["scores"]["done"]["value"] == "C")
        },
    );
    let kept = m
        .iter()
        .find(|(n, _)| n == "summaries.json")
        .map(|(_, d)| {
            serde_json::from_slice::<Vec<serde_json::Value>>(d)
                .expect("json")
                .len()
        })
        .expect("summaries.json");
    edit(
        &mut m,
        |n| n == "header.json",
        |h| {
            h["results"]["total_samples"] = serde_json::json!(kept);
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
        .stderr(predicate::str::contains("(the member has no summary)"))
        .stdout(predicate::str::contains("PASS").not());
}

/// A Vitest JSON report of one file: one passing test, then `pending` tests (records the
/// reader keeps, but cheap to judge), `total` records in all.
pub(super) fn vitest(total: usize) -> String {
    let mut s = String::from(
        r#"{"numTotalTests":1,"testResults":[{"name":"/x/a.test.js","status":"passed","assertionResults":[{"title":"ok","status":"passed"}"#,
    );
    for i in 1..total {
        s.push_str(&format!(r#",{{"title":"t{i}","status":"pending"}}"#));
    }
    s.push_str("]}]}");
    s
}

#[test]
fn review47_c10_json_report_past_the_record_cap_is_refused_while_parsing() {
    // c10: the JSON readers had no per-file record cap; a 64 MiB Vitest report of 1.9 million
    // tiny tests was parsed whole and turned into trials (3.27 GB at peak) before anything
    // refused it. Now counted as parsed, at JUnit's cap and in its words: 200,000 records
    // read, the 200,001st refused (exit 2, with its line and column).
    let dir = tempfile::tempdir().expect("tempdir");
    let cap = 200_000;
    let p = dir.path().join("over.json");
    std::fs::write(&p, vitest(cap + 1)).expect("write");
    ingest(dir.path(), &p, &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains(
            "over.json:1:",
        ))
        .stderr(predicate::str::contains(
            "more than 200000 test records in one file; gate reads at most that many from a result file",
        ));
    assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");
    // Just at the cap: read.
    let p = dir.path().join("at.json");
    std::fs::write(&p, vitest(cap)).expect("write");
    ingest(dir.path(), &p, &["--single", "1,0"]).code(0);
}

#[test]
fn review47_c10_go_json_stream_past_the_record_cap_is_refused() {
    // The same cap for `go test -json`, read line by line: the 200,001st test run is refused
    // before its trial is built.
    let dir = tempfile::tempdir().expect("tempdir");
    let mut s = String::new();
    for i in 0..200_001u32 {
        s.push_str(&format!(
            "{{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"T{i}\"}}\n\
             {{\"Action\":\"pass\",\"Package\":\"p\",\"Test\":\"T{i}\"}}\n"
        ));
    }
    s.push_str("{\"Action\":\"pass\",\"Package\":\"p\"}\n");
    let p = dir.path().join("go.json");
    std::fs::write(&p, s).expect("write");
    ingest(dir.path(), &p, &["--single", "1,0"])
        .code(2)
        .stderr(predicate::str::contains("go.json:400001:"))
        .stderr(predicate::str::contains(
            "more than 200000 test run records in one file",
        ));
}

#[test]
fn review49_c01_promptfoo_rows_past_the_record_cap_are_refused_while_streamed() {
    // Review 49, c01: promptfoo's `results.json` and `.jsonl` are streamed a row at a time,
    // each row parsed apart, which the parse-time count never saw: 1.2 million rows were held
    // (2.7 GB) until the ledger header refused them. The 200,001st row is refused now.
    let dir = tempfile::tempdir().expect("tempdir");
    let row = |i: u32| {
        format!("{{\"id\":\"r{i}\",\"testIdx\":{i},\"vars\":{{\"a\":{i}}},\"success\":true}}")
    };
    let n = 200_001u32;
    let rows: Vec<String> = (0..n).map(row).collect();
    let json = format!(
        "{{\"evalId\":\"e\",\"results\":{{\"results\":[{}],\"stats\":{{\"successes\":{n},\"failures\":0}}}}}}",
        rows.join(",")
    );
    let p = dir.path().join("p.json");
    std::fs::write(&p, json).expect("write");
    let l = dir.path().join("p.jsonl");
    std::fs::write(&l, rows.join("\n") + "\n").expect("write");
    for (file, at) in [(&p, "p.json:1:"), (&l, "p.jsonl:200001:")] {
        ingest(
            dir.path(),
            file,
            &["--single", "1,0", "--assume-retries-off"],
        )
        .code(2)
        .stderr(predicate::str::contains(at))
        .stderr(predicate::str::contains(
            "more than 200000 test records in one file",
        ));
        assert!(!dir.path().join("l.jsonl").exists(), "no ledger written");
    }
}
