//! `gate verify`: a sound ledger passes; an edited row is named; unparseable input exits 2.

use assert_cmd::cargo::cargo_bin_cmd;
use predicates::prelude::*;

use super::report::{outcomes, plan_hash, single, write_run};

fn sound(dir: &std::path::Path) -> std::path::PathBuf {
    write_run(
        &dir.join("ledger.jsonl"),
        &[
            (single("login", 10, 1), outcomes(10, &[3], None)),
            (single("refund", 10, 1), outcomes(10, &[2, 3], None)),
        ],
        None,
        &plan_hash(),
    )
}

#[test]
fn a_sound_ledger_verifies() {
    let d = tempfile::tempdir().unwrap();
    let l = sound(d.path());
    cargo_bin_cmd!("gate")
        .arg("verify")
        .arg(&l)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "ok: 17 rows, hash chain intact, 2 decisions recompute",
        ));
}

#[test]
fn one_decision_recomputes_in_the_singular() {
    let d = tempfile::tempdir().unwrap();
    let l = write_run(
        &d.path().join("ledger.jsonl"),
        &[(single("login", 10, 1), outcomes(10, &[3], None))],
        None,
        &plan_hash(),
    );
    cargo_bin_cmd!("gate")
        .arg("verify")
        .arg(&l)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "hash chain intact, 1 decision recomputes from the attempt rows",
        ));
}

#[test]
fn verify_prints_the_head_hash_which_alone_protects_the_last_row() {
    let d = tempfile::tempdir().unwrap();
    let l = sound(d.path());
    let text = std::fs::read_to_string(&l).unwrap();
    let head = |text: &str| gate::ledger::sha256_hex(text.lines().last().unwrap().as_bytes());
    let before = head(&text);
    cargo_bin_cmd!("gate")
        .arg("verify")
        .arg(&l)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!(
            "  head sha256 {before}\n"
        )));
    // An edit to the last row (the footer) leaves the chain intact and the ledger "ok";
    // only the head hash changes.
    let edited = text.replace(
        "\"finished_at\":\"2026-11-29T14:01:00.000Z\"",
        "\"finished_at\":\"2026-11-29T14:09:00.000Z\"",
    );
    assert_ne!(edited, text);
    std::fs::write(&l, &edited).unwrap();
    let after = head(&edited);
    assert_ne!(after, before);
    cargo_bin_cmd!("gate")
        .arg("verify")
        .arg(&l)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(format!("  head sha256 {after}\n")));
}

#[test]
fn one_edited_row_is_caught_and_named() {
    let d = tempfile::tempdir().unwrap();
    let l = sound(d.path());
    let text = std::fs::read_to_string(&l).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    // Line 4: login trial #3, the failure. Say it passed.
    assert!(
        lines[3].contains("\"task\":\"login\",\"trial\":3"),
        "{}",
        lines[3]
    );
    lines[3] = lines[3].replace("\"outcome\":\"fail\"", "\"outcome\":\"pass\"");
    std::fs::write(&l, lines.join("\n") + "\n").unwrap();
    cargo_bin_cmd!("gate")
        .arg("verify")
        .arg(&l)
        .assert()
        .code(1)
        .stderr(predicate::str::contains(format!(
            "error: {}:5: hash chain broken",
            l.display()
        )))
        .stdout(predicate::str::contains("BAD"));
}

#[test]
fn a_torn_tail_is_a_warning_and_garbage_is_exit_2() {
    let d = tempfile::tempdir().unwrap();
    let l = sound(d.path());
    let mut text = std::fs::read_to_string(&l).unwrap();
    text.push_str("{\"seq\":19,");
    std::fs::write(&l, &text).unwrap();
    cargo_bin_cmd!("gate")
        .arg("verify")
        .arg(&l)
        .assert()
        .code(0)
        .stderr(predicate::str::contains("warning:"))
        .stderr(predicate::str::contains("unterminated last line"));

    // A complete line that is not a row: exit 2 with file:line:col.
    text.push('\n');
    std::fs::write(&l, &text).unwrap();
    cargo_bin_cmd!("gate")
        .arg("verify")
        .arg(&l)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!("{}:18:", l.display())));
}
