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
    attempts(&l)[0].reason.clone().unwrap_or_default()
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
    let r = attempts(&l)[0].result.clone().unwrap();
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
    assert!(a.stdout_tail.ends_with("the-end"), "{:?}", a.stdout_tail);
    let log = std::fs::metadata(a.log.as_ref().unwrap()).unwrap();
    assert!(log.len() < 300 * 1024, "log is {} bytes", log.len());
    let text = read(std::path::Path::new(a.log.as_ref().unwrap()));
    assert!(text.contains("bytes of output elided by gate"));
}

/// Logs and the folders that hold them are private to the user (0600 in 0700).
#[test]
fn logs_are_private() {
    use std::os::unix::fs::PermissionsExt;
    let f = one_trial("echo hello");
    f.run(&[]).code(0);
    let l = f.ledger();
    let log = std::path::PathBuf::from(attempts(&l)[0].log.clone().unwrap());
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
    let note = attempts(&l)[0].result.clone().unwrap().note.unwrap();
    assert!(
        note.len() <= gate::untrusted::MAX_NOTE_BYTES + 3,
        "{}",
        note.len()
    );
    assert!(note.ends_with('…'));
}
