//! `go test -json` output (and gotestsum's `--jsonfile`, the same events) → first-attempt
//! trials per test, in event order.
//!
//! Each line is one event `{"Action", "Package", "Test", "Elapsed", "Output"}`. A test's run
//! starts with `run` and ends with `pass`, `fail` or `skip`; with `-count=N` the same test
//! runs N times, one after another, so its k-th `run` is its k-th trial. A package's own
//! `pass`/`fail` event (no `Test`) ends that `go test` invocation. gotestsum's
//! `--rerun-fails` then runs the failed tests again as *further invocations in the same
//! file*: those events come after the package's first end and are reruns, never first
//! attempts, so they are counted and left out (which rerun belongs to which failed trial is
//! not recorded). Learned from the real output: see scripts/gen-eval-fixtures.sh.
//!
//! Two endings are refused, never read as a pass or dropped: a package whose `fail` event
//! follows tests that all passed (a `TestMain` that exits non-zero, goleak's leak check, a
//! race report outside a test) failed as a whole, and the failure belongs to no test, so the
//! run is a harness-level failure that gate does not judge; and a stream that ends inside a
//! test's run (a `run` event with no `pass`/`fail`/`skip`, and no end of its package), which
//! was cut off, so that run's result is unknown.
//!
//! gotestsum's JUnit (`--junitfile`) is no substitute: it writes all failures first, so its
//! record order is not run order, and reruns are same-name records (see [`super::Writer`]).

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

use super::{Attempt, ParseError, Trial, cut_text};

/// One event as `go test -json` writes it (fields gate does not need are ignored).
#[derive(Deserialize)]
struct Event<'a> {
    #[serde(rename = "Action", borrow)]
    action: std::borrow::Cow<'a, str>,
    #[serde(rename = "Package", default, borrow)]
    package: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "Test", default, borrow)]
    test: Option<std::borrow::Cow<'a, str>>,
    #[serde(rename = "Elapsed", default)]
    elapsed: Option<f64>,
    #[serde(rename = "Output", default)]
    output: Option<String>,
    #[serde(rename = "Time", default, borrow)]
    time: Option<std::borrow::Cow<'a, str>>,
}

/// A run of a test that has started and not ended.
struct Open {
    /// Index into the trials.
    trial: usize,
    /// Output lines kept for the failure message.
    output: String,
    /// Line of its `run` event.
    line: u64,
}

/// What one `go test -json` stream holds.
pub struct GoRun {
    /// First-attempt trials, each test's in run order; a run that ended `skip` is a trial
    /// with no attempts, in its place ([`super::settle_skipped_repeats`]).
    pub trials: Vec<Trial>,
    /// Test runs that ended `skip`.
    pub skipped: u64,
    /// The test id of each such run.
    pub skipped_tests: Vec<String>,
    /// Test runs after their package's first invocation ended (gotestsum `--rerun-fails`).
    pub reruns: u64,
    /// The `Time` of the stream's first event: a stream and a cut-off prefix of it share it,
    /// two runs do not (it has nanoseconds).
    pub first_time: Option<String>,
    /// Per trial: the line and `Time` of its `run` event, its identity
    /// ([`super::identity::go_units`]).
    pub starts: Vec<(u64, Option<String>)>,
}

/// Whether the text looks like `go test -json` output: its first line is an event object.
pub fn looks_like(text: &str) -> bool {
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    first.trim_start().starts_with('{')
        && first.contains("\"Action\"")
        && serde_json::from_str::<Event<'_>>(first).is_ok()
}

/// Read the events, line by line, in order.
pub fn read(text: &str) -> Result<GoRun, ParseError> {
    let mut trials: Vec<Trial> = Vec::new();
    let mut starts: Vec<(u64, Option<String>)> = Vec::new();
    // Per (package, test): the runs started and not ended, oldest first.
    let mut open: HashMap<(String, String), Vec<Open>> = HashMap::new();
    // Per (package, test): how many runs started, for the repeat index.
    let mut started: HashMap<(String, String), u64> = HashMap::new();
    // Packages whose first invocation has ended: whether it ended `fail` (only a failed
    // invocation is run again, by gotestsum's `--rerun-fails`).
    let mut ended: HashMap<String, bool> = HashMap::new();

    let mut skipped = 0;
    let mut skipped_tests = Vec::new();
    let mut reruns = 0;
    let mut first_time: Option<String> = None;
    let mut tests_seen: HashMap<String, u64> = HashMap::new();
    // Packages with a test run that failed (or crashed) in their first invocation.
    let mut failed: HashSet<String> = HashSet::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i as u64 + 1;
        if line.trim().is_empty() {
            continue;
        }
        let ev: Event<'_> = serde_json::from_str(line).map_err(|e| ParseError {
            line: line_no,
            column: e.column() as u64,
            reason: format!("not a `go test -json` event: {e}"),
        })?;
        if first_time.is_none()
            && let Some(t) = &ev.time
        {
            first_time = Some(t.to_string());
        }
        let package = ev.package.as_deref().unwrap_or("").to_string();
        let Some(test) = ev.test.as_deref() else {
            // `ok  example.com/p  (cached)`: Go's test cache replayed an earlier run of the
            // package (no `-count=1`), with new `Time`s and the old outcomes: not a trial of this
            // build, as promptfoo's `cached` rows are not (review 7, c25).
            if ev.action == "output"
                && let Some(out) = ev.output.as_deref()
                && is_cached_line(out)
            {
                return Err(ParseError {
                    line: line_no,
                    column: 1,
                    reason: format!(
                        "package `{package}` is a replay from Go's test cache (`(cached)`): its tests did not \
                         run, their outcomes are an earlier run's, so they are not trials of this one. Run \
                         `go test -count=1 -json` (the cache off) for every run"
                    ),
                });
            }
            // The package's own end: every test still open there crashed with it.
            if matches!(ev.action.as_ref(), "pass" | "fail" | "skip") {
                let crashed: Vec<(String, String)> =
                    open.keys().filter(|k| k.0 == package).cloned().collect();
                for key in crashed {
                    for o in open.remove(&key).unwrap_or_default() {
                        failed.insert(package.clone());
                        let a = &mut trials[o.trial].attempts[0];
                        a.passed = false;
                        a.message =
                            "no result: the test binary ended while it ran (a panic or `-timeout`?)"
                                .into();
                        a.detail = o.output;
                    }
                }
                if ev.action == "fail"
                    && !tests_seen.contains_key(&package)
                    && !ended.contains_key(&package)
                {
                    return Err(ParseError {
                        line: line_no,
                        column: 1,
                        reason: format!(
                            "package `{package}` failed without running a test (a build failure?); gate will not \
                             judge a suite that did not run"
                        ),
                    });
                }
                if ev.action == "fail"
                    && tests_seen.contains_key(&package)
                    && !ended.contains_key(&package)
                    && !failed.contains(&package)
                {
                    return Err(ParseError {
                        line: line_no,
                        column: 1,
                        reason: format!(
                            "package `{package}` failed after every test it ran passed (a `TestMain` that exits \
                             non-zero, goleak, a race report outside a test): the failure belongs to no test, so \
                             the run failed as a whole and gate will not judge it as passing tests. Fix the \
                             package-level failure, then run the suite again"
                        ),
                    });
                }
                // A second end of a package: the end of a rerun invocation.
                ended.entry(package).or_insert(ev.action == "fail");
            }
            continue;
        };
        let key = (package.clone(), test.to_string());
        let rerun = ended.contains_key(&package);
        match ev.action.as_ref() {
            "run" => {
                if rerun {
                    // gotestsum runs again only a package that failed: a run after a
                    // package's `pass` is not a rerun, and taking it for one would drop a
                    // first attempt (a package `pass` written before the tests that fail
                    // would hide them). Which tests a rerun runs is gotestsum's choice (a
                    // failed root test's passing subtests, a whole package after a panic:
                    // review 12, a09), so it is not checked.
                    if !ended[&package] {
                        return Err(ParseError {
                            line: line_no,
                            column: 1,
                            reason: format!(
                                "test `{}::{}` runs after its package `{}` ended with `pass`: gotestsum \
                                 reruns only a package that failed, so not a stream `go test -json` or \
                                 gotestsum writes",
                                key.0, key.1, key.0
                            ),
                        });
                    }
                    reruns += 1;
                    continue;
                }
                // The per-file record cap, as JUnit's: one trial per first-invocation run.
                if trials.len() as u64 >= super::MAX_CASES_PER_FILE {
                    return Err(ParseError {
                        line: line_no,
                        column: 1,
                        reason: super::capped::too_many("test run", super::MAX_CASES_PER_FILE),
                    });
                }
                *tests_seen.entry(package.clone()).or_default() += 1;
                let n = started.entry(key.clone()).or_default();
                *n += 1;
                trials.push(Trial {
                    test: format!("{}::{}", key.0, key.1),
                    repeat: *n,
                    attempts: vec![Attempt {
                        passed: false,
                        unavailable: false,
                        duration_s: 0.0,
                        message: String::new(),
                        detail: String::new(),
                    }],
                });
                starts.push((line_no, ev.time.as_deref().map(str::to_string)));
                open.entry(key).or_default().push(Open {
                    trial: trials.len() - 1,
                    output: String::new(),
                    line: line_no,
                });
            }
            "output" => {
                if let (Some(o), Some(text)) = (
                    open.get_mut(&key).and_then(|v| v.first_mut()),
                    ev.output.as_deref(),
                ) {
                    let room = super::junit::MAX_TEXT.saturating_sub(o.output.len());
                    o.output.extend(text.chars().take(room));
                }
            }
            action @ ("pass" | "fail" | "skip") => {
                let Some(runs) = open.get_mut(&key).filter(|v| !v.is_empty()) else {
                    if rerun {
                        // A rerun's end: its start was left out with it.
                        continue;
                    }
                    // `go test` writes no end without its start: a second `pass` before a
                    // run's `fail` would otherwise close the run as passed and leave the
                    // failure with nothing to end.
                    return Err(ParseError {
                        line: line_no,
                        column: 1,
                        reason: format!(
                            "`{action}` of test `{}::{}` ends no run that started (no `run` event before it): \
                             not a stream `go test -json` writes",
                            key.0, key.1
                        ),
                    });
                };
                let o = runs.remove(0);
                if action == "skip" {
                    skipped += 1;
                    skipped_tests.push(trials[o.trial].test.clone());
                    trials[o.trial].attempts.clear();
                    continue;
                }
                let a = &mut trials[o.trial].attempts[0];
                a.duration_s = ev.elapsed.unwrap_or(0.0);
                a.passed = action == "pass";
                if !a.passed {
                    failed.insert(key.0.clone());
                    a.message = failure_line(&o.output);
                    a.detail = cut_text(&o.output);
                }
            }
            _ => {}
        }
    }
    // A stream cut off inside a test (the run was killed, the file truncated): that run has
    // no result, and dropping it would leave only the runs that finished. Refused, naming it.
    if let Some((key, o)) = open
        .iter()
        .flat_map(|(k, v)| v.iter().map(move |o| (k, o)))
        .min_by_key(|(_, o)| o.line)
    {
        return Err(ParseError {
            line: o.line,
            column: 1,
            reason: format!(
                "test `{}::{}` started here and the stream ends before its result (no `pass`, `fail` or \
                 `skip`, and no end of its package): the run was killed or the file was cut off, so that \
                 run's outcome is unknown. Run the suite to its end and read the whole stream",
                key.0, key.1
            ),
        });
    }
    // A stream cut off between tests, before its package's end event: the tests after the cut
    // never ran or their results are lost, and a package-level failure (TestMain, goleak) is
    // only in that event. Refused, naming the package.
    let mut unended: Vec<&String> = tests_seen
        .keys()
        .filter(|p| !ended.contains_key(*p))
        .collect();
    unended.sort();
    if let Some(package) = unended.first() {
        return Err(ParseError {
            line: text.lines().count().max(1) as u64,
            column: 1,
            reason: format!(
                "the stream ends before package `{package}` ended (no package `pass`, `fail` or `skip` event): \
                 the run was killed or the file was cut off between tests, so the tests after the cut and any \
                 package-level failure are unknown. Run the suite to its end and read the whole stream"
            ),
        });
    }
    // Skipped runs stay in place, with no attempts: whether one is a skip or a failed
    // repeat depends on the test's other runs in the stream, which
    // [`super::settle_skipped_repeats`] decides for every reader alike (review 47, c21).
    Ok(GoRun {
        trials,
        skipped,
        skipped_tests,
        reruns,
        first_time,
        starts,
    })
}

/// Whether a package's output line is `go test`'s summary of a cached result:
/// `ok  <package>\t(cached)`, possibly followed by coverage or `[no tests to run]`.
fn is_cached_line(out: &str) -> bool {
    let mut words = out.split_whitespace();
    words.next() == Some("ok") && words.nth(1) == Some("(cached)")
}

/// The first line of a failed test's output that says something (not `=== RUN`, not the
/// `--- FAIL` line), trimmed.
fn failure_line(output: &str) -> String {
    output
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with("=== ") && !l.starts_with("--- "))
        .unwrap_or("failed")
        .chars()
        .take(200)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_json_stream_ending_mid_test_is_refused() {
        // Break 15 of issue 29: the cut-off run was dropped silently and the others judged.
        let text = concat!(
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            "\n",
            r#"{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}"#,
            "\n",
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            "\n"
        );
        let e = read(text).err().expect("refused");
        assert_eq!(e.line, 3);
        assert!(
            e.reason.contains("`p::TestA`") && e.reason.contains("cut off"),
            "{}",
            e.reason
        );
    }

    #[test]
    fn a_package_pass_written_before_a_failing_test_does_not_hide_it() {
        // Found by the reader fuzzing (issue 29): a package `pass` event inserted after the
        // first test made every later event a "rerun", so the failing test was dropped and
        // the file read as all passing.
        let text = concat!(
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            "\n",
            r#"{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}"#,
            "\n",
            r#"{"Action":"pass","Package":"p"}"#,
            "\n",
            r#"{"Action":"run","Package":"p","Test":"TestB"}"#,
            "\n",
            r#"{"Action":"fail","Package":"p","Test":"TestB","Elapsed":0.1}"#,
            "\n",
            r#"{"Action":"fail","Package":"p","Elapsed":0.2}"#,
            "\n"
        );
        let e = read(text).err().expect("refused");
        assert_eq!(e.line, 4);
        assert!(e.reason.contains("ended with `pass`"), "{}", e.reason);
        // A package `fail` written early: a later test is no rerun of a failed one either.
        let early_fail = text.replace(
            r#"{"Action":"pass","Package":"p"}"#,
            r#"{"Action":"fail","Package":"p"}"#,
        );
        assert!(read(&early_fail).is_err());
    }

    #[test]
    fn a_gotestsum_rerun_of_a_failed_root_test_with_passing_subtests_is_read() {
        // Review 12, a09b: gotestsum reruns a root test that failed by itself, and with it
        // its subtests that passed; a rerun of a test that did not fail is legitimate.
        let text = [
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            r#"{"Action":"run","Package":"p","Test":"TestA/ok"}"#,
            r#"{"Action":"pass","Package":"p","Test":"TestA/ok","Elapsed":0}"#,
            r#"{"Action":"fail","Package":"p","Test":"TestA","Elapsed":0.1}"#,
            r#"{"Action":"fail","Package":"p","Elapsed":0.2}"#,
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            r#"{"Action":"run","Package":"p","Test":"TestA/ok"}"#,
            r#"{"Action":"pass","Package":"p","Test":"TestA/ok","Elapsed":0}"#,
            r#"{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}"#,
            r#"{"Action":"pass","Package":"p","Elapsed":0.2}"#,
        ]
        .join("\n");
        let run = read(&text).expect("read");
        let first: Vec<(&str, bool)> = run
            .trials
            .iter()
            .map(|t| (t.test.as_str(), t.attempts[0].passed))
            .collect();
        assert_eq!(first, [("p::TestA", false), ("p::TestA/ok", true)]);
    }

    #[test]
    fn go_json_package_failing_after_every_test_passed_is_refused() {
        // Break 13 of issue 29: TestMain (or goleak) fails the package after its tests pass.
        let text = concat!(
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            "\n",
            r#"{"Action":"pass","Package":"p","Test":"TestA","Elapsed":0.1}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Output":"goleak: Errors on successful test run\n"}"#,
            "\n",
            r#"{"Action":"fail","Package":"p","Elapsed":0.2}"#,
            "\n"
        );
        let e = read(text).err().expect("refused");
        assert_eq!(e.line, 4);
        assert!(
            e.reason.contains("package `p` failed after every test"),
            "{}",
            e.reason
        );
        // With a failing test, the package's `fail` is that test's: read as usual.
        let text = text.replace(
            r#""Action":"pass","Package":"p","Test""#,
            r#""Action":"fail","Package":"p","Test""#,
        );
        let run = read(&text).expect("reads");
        assert!(!run.trials[0].attempts[0].passed);
    }

    #[test]
    fn a_test_open_when_its_package_ends_failed() {
        let text = concat!(
            r#"{"Action":"run","Package":"p","Test":"TestA"}"#,
            "\n",
            r#"{"Action":"output","Package":"p","Test":"TestA","Output":"panic: boom\n"}"#,
            "\n",
            r#"{"Action":"fail","Package":"p","Elapsed":0.1}"#,
            "\n"
        );
        let run = read(text).expect("reads");
        assert_eq!(run.trials.len(), 1);
        assert!(!run.trials[0].attempts[0].passed);
        assert!(run.trials[0].attempts[0].message.contains("no result"));
    }

    #[test]
    fn a_bad_line_is_refused_with_its_position() {
        let text = "{\"Action\":\"run\",\"Package\":\"p\",\"Test\":\"T\"}\nnot json\n";
        let e = read(text).err().expect("refused");
        assert_eq!(e.line, 2);
    }
}
