//! A JUnit document → first-attempt trials: which runner wrote it, and how that runner
//! records repeats and retries (the conventions are listed in the [`super`] module's docs).

use std::collections::HashMap;
use std::path::Path;

use super::junit::{self, Case, Document, Status};
use super::{Attempt, Format, IngestError, Options, RunFile, Trial, Writer};

/// Read one JUnit file.
pub(super) fn read_junit(
    path: &Path,
    bytes: &[u8],
    opts: &Options,
) -> Result<RunFile, IngestError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = junit::line_col(
            &String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
            e.valid_up_to(),
        );
        IngestError::NotJunit {
            path: path.to_path_buf(),
            line,
            column,
            reason: "not UTF-8".into(),
        }
    })?;
    let doc = junit::parse(text).map_err(|e| {
        if e.refused {
            // Well-formed JUnit that gate refuses: said as what it is, not "not JUnit XML".
            IngestError::Invalid {
                path: path.to_path_buf(),
                line: e.line,
                column: e.column,
                reason: e.reason,
            }
        } else {
            IngestError::NotJunit {
                path: path.to_path_buf(),
                line: e.line,
                column: e.column,
                reason: e.reason,
            }
        }
    })?;
    let mut doc = doc;
    let writer = writer_of(&doc);
    if writer == Writer::Mocha {
        // mocha-junit-reporter writes the full title (`agent refund`) as the name and the
        // test's own title (`refund`) as the class name: the full title alone is the test.
        for c in &mut doc.cases {
            if c.name.ends_with(&c.classname) {
                c.classname.clear();
            }
        }
    }
    if writer == Writer::PromptfooJunit {
        // promptfoo names each row `test {testIdx + 1}: {description}`: without the prefix,
        // the rows of one test are its repeats, in testIdx (document) order.
        for c in &mut doc.cases {
            if let Some(rest) = strip_test_number(&c.name) {
                c.name = rest.to_string();
            }
        }
    }
    if writer == Writer::Gotestsum {
        refuse_go_cache_replay(path, &doc)?;
    }
    refuse_suite_twice(path, &doc)?;
    let mut identity = super::Identity::default();
    if let Some(uuid) = &doc.run_id {
        identity.run_ids.push(format!("JUnit run uuid `{uuid}`"));
    }
    identity.stamps.extend(doc.stamp.iter().cloned());
    identity.units = super::identity::junit_units(&doc);
    identity
        .stamps
        .extend(doc.suites.iter().filter_map(|s| s.stamp.clone()));
    identity
        .stamps
        .extend(doc.cases.iter().filter_map(|c| c.stamp.clone()));
    let (trials, skipped, origins) =
        interpret(&doc, writer, opts.assume_retries_off).map_err(|r| match r {
            Refusal::RetriesInvisible(reason) => IngestError::RetriesInvisible {
                path: path.to_path_buf(),
                reason,
            },
            Refusal::SameId { line, reason } => IngestError::SameId {
                path: path.to_path_buf(),
                line,
                reason,
            },
            Refusal::TooMany { line, reason } | Refusal::NeverRan { line, reason } => {
                IngestError::Invalid {
                    path: path.to_path_buf(),
                    line,
                    column: 1,
                    reason,
                }
            }
        })?;
    Ok(RunFile {
        skipped: skipped.len() as u64,
        skipped_tests: skipped,
        origins,
        identity,
        ..RunFile::new(path, writer, Format::Junit, trials)
    })
}

/// Refuse gotestsum JUnit of a package replayed from Go's test cache (`go test` without
/// `-count=1`): the replay's outcomes are an earlier run's, not trials of this one (review 8,
/// a08). gotestsum's JUnit has no `(cached)` marker, but it writes the package's `time` from
/// the elapsed time of the package's own `pass`/`fail` event (`Package.Elapsed` in its
/// `testjson`). test2json gives that event the time since it began converting the package,
/// in whole milliseconds (`Close` in cmd/internal/test2json): 0 for a cached package, whose
/// output is replayed at once, while each test case keeps the time its replayed
/// `--- PASS: TestX (0.01s)` line says. A package that really ran took
/// at least as long as its slowest test, so a suite `time` below a test case's time (by more
/// than the case's rounding to 0.01 s) is a replay: 0 and the 0.001 a slow conversion gives
/// (review 10, a20). A package that really ran also took at least its test binary's start,
/// which rounds to 1 ms or more, so a `time` of 0 over test cases that all show 0.000 is a
/// replay too. A replay whose `time` is 1 ms or more over cases that all show 0.00 s cannot be
/// told from a fresh fast run, nor one whose `<testsuite>` has no `time`. (gotestsum before
/// that change summed the test cases' times: such a file never shows the shape, and a replay
/// in it cannot be seen.)
fn refuse_go_cache_replay(path: &Path, doc: &Document) -> Result<(), IngestError> {
    /// A test case's time is its `--- PASS: TestX (0.01s)` line's, rounded to 0.01 s.
    const CASE_ROUNDING_S: f64 = 0.005;
    for (i, s) in doc.suites.iter().enumerate() {
        let Some(time) = s.time_s else { continue };
        let Some(slowest) = doc
            .cases
            .iter()
            .filter(|c| c.suite == i + 1)
            .max_by(|a, b| a.time_s.total_cmp(&b.time_s))
        else {
            continue;
        };
        let shape = if time <= 0.0 && slowest.time_s > 0.0 {
            format!(
                "took no time (its `<testsuite>`'s `time` is 0) while its test `{}` (line {}) ran for {} s",
                crate::untrusted::one_line(&slowest.name),
                slowest.line,
                slowest.time_s
            )
        } else if time + CASE_ROUNDING_S < slowest.time_s && !names_repeat(doc, i + 1) {
            format!(
                "took {time} s (its `<testsuite>`'s `time`), less than its test `{}` (line {}), which ran for {} s",
                crate::untrusted::one_line(&slowest.name),
                slowest.line,
                slowest.time_s
            )
        } else if time <= 0.0 {
            format!(
                "took no time (its `<testsuite>`'s `time` is 0) over its tests (`{}`, line {}): a package that \
                 runs takes at least its test binary's start, 1 ms or more",
                crate::untrusted::one_line(&slowest.name),
                slowest.line
            )
        } else {
            continue;
        };
        return Err(IngestError::Invalid {
            path: path.to_path_buf(),
            line: s.line,
            column: 1,
            reason: format!(
                "package `{}` {shape}: gotestsum writes that for a package replayed from Go's test cache \
                 (`go test` without `-count=1`), whose tests did not run, so their outcomes are an earlier run's \
                 and not trials of this one. Run `go test -count=1` (gotestsum `-- -count=1`) for every run, or \
                 give gate gotestsum's `--jsonfile` stream, where the cache's `(cached)` is seen \
                 (`--format go-json`)",
                crate::untrusted::one_line(&s.name),
            ),
        });
    }
    Ok(())
}

/// Whether a test case name occurs twice in `<testsuite>` number `suite`: a file of several
/// runs of the package (gotestsum `--rerun-fails`, `-count=N`), whose package `time` is one
/// run's (the last rerun's), not the whole file's, so it may be below an earlier run's case.
/// Such a file is refused for its repeated names (their order is not run order).
fn names_repeat(doc: &Document, suite: usize) -> bool {
    let mut seen = std::collections::HashSet::new();
    doc.cases
        .iter()
        .filter(|c| c.suite == suite)
        .any(|c| !seen.insert((c.classname.as_str(), c.name.as_str())))
}

/// Refuse a file in which one `<testsuite>` is written twice: the same suite name,
/// timestamp and test cases with the same outcomes, times and timestamps. That is one run's
/// suite pasted twice, which would count as two runs; two runs of a suite in one file differ
/// in their timestamps. Suites that record no timestamp (theirs or their test cases') are not
/// compared, as for files ([`super::check_distinct`]): equal durations alone can repeat.
fn refuse_suite_twice(path: &Path, doc: &Document) -> Result<(), IngestError> {
    use sha2::Digest as _;
    let mut per_suite: Vec<(sha2::Sha256, bool, usize)> = doc
        .suites
        .iter()
        .map(|s| {
            let mut h = sha2::Sha256::new();
            h.update(format!("{:?}|{:?}", s.name, s.stamp));
            (h, s.stamp.is_some(), 0)
        })
        .collect();
    for c in &doc.cases {
        let Some(slot) = c.suite.checked_sub(1).and_then(|i| per_suite.get_mut(i)) else {
            continue;
        };
        // Everything the record says, but where it is in the file.
        let mut c = c.clone();
        c.line = 0;
        c.suite = 0;
        let text = format!("{c:?}");
        slot.0.update((text.len() as u64).to_le_bytes());
        slot.0.update(text.as_bytes());
        slot.1 |= c.stamp.is_some();
        slot.2 += 1;
    }
    let mut seen: HashMap<Vec<u8>, usize> = HashMap::new();
    for (i, (h, timed, cases)) in per_suite.into_iter().enumerate() {
        if !timed || cases == 0 {
            continue;
        }
        if let Some(first) = seen.insert(h.finalize().to_vec(), i) {
            return Err(IngestError::Refused {
                path: path.to_path_buf(),
                reason: format!(
                    "the `<testsuite>` at line {} is the one at line {} again (the same name, test cases, outcomes, \
                     times and timestamps): one run's suite written twice, which would count as two runs. Give \
                     each run once (docs/ingest.md, \"Evidence has an identity\")",
                    doc.suites[i].line, doc.suites[first].line
                ),
            });
        }
    }
    Ok(())
}

/// Recognise the writer from the root element and the records.
pub fn writer_of(doc: &Document) -> Writer {
    match doc.root_name.as_deref() {
        Some("nextest-run") => return Writer::Nextest,
        Some("pytest tests") => return Writer::Pytest,
        Some("pytest") if doc.root == "testsuite" => return Writer::Pytest,
        Some("jest tests") => return Writer::Jest,
        Some("promptfoo") => return Writer::PromptfooJunit,
        Some("vitest tests") => return Writer::Vitest,
        Some("Mocha Tests") => return Writer::Mocha,
        _ => {}
    }
    if doc.go_version {
        return Writer::Gotestsum;
    }
    if doc.cases.iter().any(|c| c.invocations.is_some()) {
        Writer::Jest
    } else if doc.root_has_id || doc.cases.iter().any(|c| c.name.contains(" › ")) {
        Writer::Playwright
    } else {
        Writer::Other
    }
}

/// `test 12: refund` → `refund`.
fn strip_test_number(name: &str) -> Option<&str> {
    let rest = name.strip_prefix("test ")?;
    let (n, tail) = rest.split_once(": ")?;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then_some(tail)
}

/// The test id of a record: `classname::name`, or the name alone when the class name is
/// empty or repeats it (jest-junit writes the full title into both).
fn test_id(classname: &str, name: &str) -> String {
    if classname.is_empty() || classname == name {
        name.to_string()
    } else {
        format!("{classname}::{name}")
    }
}

/// The attempts one record holds, attempt 1 first; `None` for a skipped record.
fn attempts_of(case: &Case) -> Option<Vec<Attempt>> {
    let retry = |r: &junit::Retry| Attempt {
        passed: false,
        unavailable: false,
        duration_s: r.time_s,
        message: r.message.clone(),
        detail: r.detail.clone(),
    };
    let own = match &case.status {
        // A retry element records a failed attempt of a test that ran: with a skip (an
        // element or a status word) it is never a skip, which would make the failing test
        // vanish (review 11, a05). The attempt is read as failed.
        Status::Skipped if !case.reruns.is_empty() || !case.flaky.is_empty() => Attempt {
            passed: false,
            unavailable: false,
            duration_s: case.time_s,
            message: "failed (a retry failure recorded on a test marked skipped)".into(),
            detail: String::new(),
        },
        Status::Skipped => return None,
        // Surefire writes `<rerunFailure>` only after the first attempt's `<failure>`: one
        // without it records a failed rerun of a test whose first attempt is not there, never
        // a pass (review 10, a05). The first attempt is read as failed too.
        Status::Pass if !case.reruns.is_empty() => Attempt {
            passed: false,
            unavailable: false,
            duration_s: case.time_s,
            message: "failed (a rerun failure recorded without its first failure)".into(),
            detail: String::new(),
        },
        Status::Pass => Attempt {
            passed: true,
            unavailable: false,
            duration_s: case.time_s,
            message: String::new(),
            detail: String::new(),
        },
        Status::Fail { message, detail } => Attempt {
            passed: false,
            unavailable: false,
            duration_s: case.time_s,
            message: if message.is_empty() {
                detail.lines().next().unwrap_or("failed").to_string()
            } else {
                message.clone()
            },
            detail: detail.clone(),
        },
    };
    let mut out = Vec::with_capacity(1 + case.flaky.len() + case.reruns.len());
    if !case.flaky.is_empty() {
        // Failed attempts, then the passing one the record itself describes.
        out.extend(case.flaky.iter().map(retry));
        out.push(own);
    } else {
        // Attempt 1 is the record's own result; reruns came after it.
        out.push(own);
        out.extend(case.reruns.iter().map(retry));
    }
    Some(out)
}

/// Why [`interpret`] refuses a document.
enum Refusal {
    /// The file's retries cannot be told apart from first attempts.
    RetriesInvisible(String),
    /// Two different test cases would share one test id.
    SameId {
        /// Line of the second test case.
        line: u64,
        /// Which ones.
        reason: String,
    },
    /// A count over [`super::MAX_COUNT`].
    TooMany {
        /// Line of the record.
        line: u64,
        /// Which count.
        reason: String,
    },
    /// A result recorded for a test its own count says never ran (`invocations` 0).
    NeverRan {
        /// Line of the record.
        line: u64,
        /// Which test.
        reason: String,
    },
}

/// Turn a document's records into trials, by the rules of its writer. A skipped record is a
/// trial with no attempts, in its place, and its test is listed as skipped: what it is, a
/// skip or a failed repeat, is decided with the file's other trials
/// ([`super::settle_skipped_repeats`]).
fn interpret(
    doc: &Document,
    writer: Writer,
    vouched: bool,
) -> Result<(Vec<Trial>, Vec<String>, super::Origins), Refusal> {
    let mut skipped: Vec<String> = Vec::new();
    match writer {
        Writer::Playwright if !vouched => {
            return Err(Refusal::RetriesInvisible(
                "written by Playwright's JUnit reporter, which does not record retries: a test that passed \
                 on a retry looks exactly like a first-attempt pass, so gate cannot tell first attempts apart. \
                 Check Playwright's own setting first: `retries: 0` in playwright.config (a generated config \
                 has `retries: process.env.CI ? 2 : 0`, so CI retries twice) and no `--retries` on the command \
                 line; repeat with `--repeat-each N`. Its JSON reporter records every retry: run with \
                 `--reporter=json` and `PLAYWRIGHT_JSON_OUTPUT_NAME=report.json`, then \
                 `gate ingest --format playwright-json report.json`. To read this JUnit file on your word \
                 that retries were off, pass `--assume-retries-off`"
                    .into(),
            ));
        }
        Writer::Jest if !vouched => {
            if let Some(c) = doc.cases.iter().find(|c| c.invocations.is_none()) {
                return Err(Refusal::RetriesInvisible(format!(
                    "written by jest-junit without an `invocations` property (test `{}`, line {}): jest-junit \
                     does not record `jest.retryTimes` retries, so a test that passed on a retry looks like a \
                     first-attempt pass. Record them with a junitTestCaseProperties.js containing \
                     `module.exports = (r) => ({{ invocations: r.invocations }});` beside the Jest config, or \
                     read Jest's own report, which records them: `jest --json --outputFile=run-N.json`, then \
                     `gate ingest --format jest-json run-*.json`; or check that no test file calls \
                     `jest.retryTimes` and pass `--assume-retries-off`",
                    test_id(&c.classname, &c.name),
                    c.line
                )));
            }
        }
        Writer::Vitest if !vouched => {
            return Err(Refusal::RetriesInvisible(
                "written by Vitest's JUnit reporter, which does not record retries: a test that passed on a \
                 retry looks exactly like a first-attempt pass. Check Vitest's own setting first: no `retry` \
                 in vitest.config (or `retry: 0`), no `--retry` on the command line, and no `{ retry: N }` on a \
                 test; run the suite once per file. Its JSON reporter shows retries: \
                 `vitest run --reporter=json --outputFile=run-N.json`, then \
                 `gate ingest --format jest-json run-*.json`. To read this JUnit file on your word that \
                 retries were off, pass `--assume-retries-off`"
                    .into(),
            ));
        }
        Writer::Mocha if !vouched => {
            return Err(Refusal::RetriesInvisible(
                "written by mocha-junit-reporter, which does not record retries: a test that passed on a \
                 retry looks exactly like a first-attempt pass. Check mocha's own setting first: `--retries 0` \
                 on the command line (it overrides `retries` in .mocharc) and no `this.retries(N)` in a test. \
                 mocha's JSON reporter records each test's `currentRetry`: \
                 `mocha --reporter json --reporter-option output=run-N.json`, then \
                 `gate ingest --format mocha-json run-*.json`. To read this JUnit file on your word that \
                 retries were off, pass `--assume-retries-off`"
                    .into(),
            ));
        }
        Writer::Gotestsum => {
            let mut names = std::collections::HashSet::new();
            if let Some(c) = doc
                .cases
                .iter()
                .find(|c| !names.insert((&c.classname, &c.name)))
            {
                return Err(Refusal::RetriesInvisible(format!(
                    "written by gotestsum, and test `{}` is recorded more than once (line {}): gotestsum's JUnit \
                     lists every failure before the passes, so its record order is not run order, and it writes \
                     `--rerun-fails` reruns as more records of the same name. Read the events instead: \
                     `go test -json -count=N ./... > go-test.json` (or gotestsum's `--jsonfile`) and \
                     `gate ingest --format go-json go-test.json`",
                    test_id(&c.classname, &c.name),
                    c.line
                )));
            }
        }
        Writer::Other if !vouched => {
            return Err(Refusal::RetriesInvisible(
                "this JUnit file's writer is not one gate knows how retries are recorded in (cargo-nextest, \
                 pytest, jest-junit with `invocations`), so a test that passed on a retry cannot be told from a \
                 first-attempt pass. Check the runner's own retry setting is off (mocha: no `--retries` or \
                 `this.retries()`; Go: read `go test -json` with `--format go-json` instead), then pass \
                 `--assume-retries-off`"
                    .into(),
            ));
        }
        _ => {}
    }

    // Records by name within this file, in document order.
    let mut order: Vec<(String, String)> = Vec::new();
    let mut records: HashMap<(String, String), Vec<&Case>> = HashMap::new();
    for case in &doc.cases {
        let key = (case.classname.clone(), case.name.clone());
        let slot = records.entry(key.clone()).or_default();
        if slot.is_empty() {
            order.push(key);
        }
        slot.push(case);
    }

    let repeats = if writer == Writer::Pytest {
        pytest_repeats(&order)
    } else {
        HashMap::new()
    };

    // `classname::name` is not injective (`a` + `b::c` and `a::b` + `c` are both `a::b::c`,
    // as a nextest lib test `integration::foo` and an integration-test binary's `foo` can
    // be): merging two test cases would hide one's failures among the other's trials.
    let mut owner: HashMap<String, (&str, String, u64)> = HashMap::new();
    let mut origins = super::Origins::new();
    let mut trials: Vec<Trial> = Vec::new();
    // Attempts after the first over the file (super::MAX_RETRIES_PER_FILE): pytest-rerunfailures'
    // reruns, which are records, not elements the JUnit parser already counted.
    let mut spent = 0;
    for key in &order {
        let cases = &records[key];
        let (id, repeat) = match repeats.get(key) {
            Some((base, i)) => (test_id(&key.0, base), Some(*i)),
            None => (test_id(&key.0, &key.1), None),
        };
        let base = repeats.get(key).map_or(key.1.clone(), |(b, _)| b.clone());
        let line = cases[0].line;
        match owner.get(&id) {
            Some((class, name, first)) if (*class, name) != (key.0.as_str(), &base) => {
                return Err(Refusal::SameId {
                    line,
                    reason: format!(
                        "test case `{}` (classname `{}`) and test case `{name}` (classname `{class}`, \
                         line {first}) would both be the test `{id}`; gate will not merge two \
                         different tests' trials. Rename one of them",
                        key.1, key.0
                    ),
                });
            }
            Some(_) => {}
            None => {
                origins.insert(id.clone(), (key.0.clone(), base.clone()));
                owner.insert(id.clone(), (key.0.as_str(), base, line));
            }
        }
        if writer == Writer::Pytest {
            // pytest-rerunfailures: every record but the last is a failed attempt of one
            // trial (written without a failure element), the last is the final result.
            let (last, earlier) = cases.split_last().expect("a key has at least one record");
            // Each earlier record is one more attempt of the one trial: bounded as a count.
            super::Count::new(
                earlier.len() as u64,
                "the number of pytest-rerunfailures reruns",
            )
            .map_err(|reason| Refusal::TooMany {
                line: last.line,
                reason: format!("test case `{}`: {reason}", key.1),
            })?;
            // Each rerun is a ledger row: bounded over the whole file too, as every reader's
            // retries are (review 47, c20: 19 tests × 10,000 records wrote 190,000 rows).
            super::spend_retries(&mut spent, earlier.len() as u64).map_err(|reason| {
                Refusal::TooMany {
                    line: last.line,
                    reason,
                }
            })?;
            let mut final_attempts = match attempts_of(last) {
                Some(a) => a,
                None if earlier.is_empty() => {
                    // Kept in its place (a pytest-repeat repeat), no attempts: a skip, or a
                    // failed repeat when other repeats of the test ran
                    // (super::settle_skipped_repeats; review 47, c21).
                    skipped.push(id.clone());
                    trials.push(Trial {
                        test: id,
                        repeat: repeat.unwrap_or(1),
                        attempts: Vec::new(),
                    });
                    continue;
                }
                // A rerun that ended skipped (a skip raised on the retry): the failed attempts
                // before it still happened, and the first of them is the trial's grade.
                None => Vec::new(),
            };
            let mut attempts: Vec<Attempt> = earlier
                .iter()
                .map(|c| Attempt {
                    passed: false,
                    unavailable: false,
                    duration_s: c.time_s,
                    message: "failed (recorded by pytest-rerunfailures as a rerun)".into(),
                    detail: String::new(),
                })
                .collect();
            attempts.append(&mut final_attempts);
            trials.push(Trial {
                test: id,
                repeat: repeat.unwrap_or(1),
                attempts,
            });
        } else {
            for (k, case) in cases.iter().enumerate() {
                let Some(mut attempts) = attempts_of(case) else {
                    // Kept in its place, no attempts (super::settle_skipped_repeats).
                    skipped.push(id.clone());
                    trials.push(Trial {
                        test: id.clone(),
                        repeat: repeat.unwrap_or(k as u64 + 1),
                        attempts: Vec::new(),
                    });
                    continue;
                };
                if case.invocations == Some(0) {
                    // Zero invocations: the test never ran, so its result is not a trial (and
                    // read as one, no failure before it, it would be a first-attempt pass).
                    return Err(Refusal::NeverRan {
                        line: case.line,
                        reason: format!(
                            "test case `{}` has a result but its `invocations` property is 0: a test \
                             that never ran has no result to grade",
                            test_id(&case.classname, &case.name)
                        ),
                    });
                }
                if let Some(n) = case.invocations
                    && case.flaky.is_empty()
                    && case.reruns.is_empty()
                    && n > 1
                {
                    // Jest retries a test only after it failed: invocations − 1 failures first.
                    let mut before: Vec<Attempt> = (1..n)
                        .map(|_| Attempt {
                            passed: false,
                            unavailable: false,
                            duration_s: 0.0,
                            message: "failed (counted by Jest's `invocations`)".into(),
                            detail: String::new(),
                        })
                        .collect();
                    before.append(&mut attempts);
                    attempts = before;
                }
                trials.push(Trial {
                    test: id.clone(),
                    repeat: repeat.unwrap_or(k as u64 + 1),
                    attempts,
                });
            }
        }
    }
    // Each test's trials in repeat order; tests keep their first appearance's order.
    let mut first_seen: HashMap<String, usize> = HashMap::new();
    for (i, t) in trials.iter().enumerate() {
        first_seen.entry(t.test.clone()).or_insert(i);
    }
    trials.sort_by_key(|t| (first_seen[&t.test], t.repeat));
    Ok((trials, skipped, origins))
}

/// pytest-repeat names repeat i of M `name[i-M]`, or `name[param-i-M]` for a parametrized
/// test. A name is read as a repeat only when its (class, base name, M) group holds every
/// index 1..=M (pytest-repeat writes them all) and M ≥ 2, so a parameter id that merely
/// looks like `1-3` (say `test_x[1-3]` and `test_x[2-3]`) is left alone. A parametrized test
/// whose ids are exactly `[1-M]`…`[M-M]` cannot be told from a repeat by its names.
/// Returns, for each decorated record key, the undecorated name and i.
fn pytest_repeats(keys: &[(String, String)]) -> HashMap<(String, String), (String, u64)> {
    let parsed: Vec<Option<(String, u64, u64)>> = keys.iter().map(|k| split_repeat(&k.1)).collect();
    let mut groups: HashMap<(String, String, u64), Vec<u64>> = HashMap::new();
    for (k, p) in keys.iter().zip(&parsed) {
        if let Some((base, i, m)) = p {
            groups
                .entry((k.0.clone(), base.clone(), *m))
                .or_default()
                .push(*i);
        }
    }
    // Whether each group holds every index 1..=m: decided once per group (sorting each
    // group once), not once per record, which sorted a copy of the whole group for each of
    // its records (quadratic: 40,000 repeats of one test took minutes; issue 29 review, B3).
    let complete: HashMap<(String, String, u64), bool> = groups
        .into_iter()
        .map(|(key, mut indices)| {
            indices.sort_unstable();
            indices.dedup();
            let m = key.2;
            let whole = m >= 2 && indices.iter().copied().eq(1..=m);
            (key, whole)
        })
        .collect();
    let mut out = HashMap::new();
    for (k, p) in keys.iter().zip(parsed) {
        let Some((base, i, m)) = p else { continue };
        if complete[&(k.0.clone(), base.clone(), m)] {
            out.insert(k.clone(), (base, i));
        }
    }
    out
}

/// `test_x[3-20]` → (`test_x`, 3, 20); `test_x[a-3-20]` → (`test_x[a]`, 3, 20).
pub(crate) fn split_repeat(name: &str) -> Option<(String, u64, u64)> {
    let inner = name.strip_suffix(']')?;
    let open = inner.find('[')?;
    let (head, params) = (&inner[..open], &inner[open + 1..]);
    let (rest, m) = params.rsplit_once('-')?;
    let (param, i) = match rest.rsplit_once('-') {
        Some((p, i)) => (Some(p), i),
        None => (None, rest),
    };
    let (i, m): (u64, u64) = (i.parse().ok()?, m.parse().ok()?);
    let base = match param {
        Some(p) => format!("{head}[{p}]"),
        None => head.to_string(),
    };
    Some((base, i, m))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// B3 (issue 29 review): every record's group was copied and sorted once per record, so
    /// one test repeated M times cost O(M² log M). The groups are now decided once each; this
    /// pins the result on a group large enough that the old cost showed (40,000 repeats),
    /// alongside an incomplete group and a parametrized id that only looks like a repeat.
    #[test]
    fn pytest_repeats_are_decided_once_per_group_and_stay_correct_at_scale() {
        let m = 40_000u64;
        let mut keys: Vec<(String, String)> = (1..=m)
            .map(|i| ("c".to_string(), format!("test_x[{i}-{m}]")))
            .collect();
        // Index 2 of 3 is missing: parameter ids, not repeats.
        keys.push(("c".into(), "test_y[1-3]".into()));
        keys.push(("c".into(), "test_y[3-3]".into()));
        let out = pytest_repeats(&keys);
        assert_eq!(out.len() as u64, m);
        assert_eq!(
            out.get(&("c".to_string(), format!("test_x[{m}-{m}]"))),
            Some(&("test_x".to_string(), m))
        );
        assert!(!out.contains_key(&("c".to_string(), "test_y[1-3]".to_string())));
    }

    #[test]
    fn pytest_repeat_decorations_split() {
        assert_eq!(split_repeat("test_x[3-20]"), Some(("test_x".into(), 3, 20)));
        assert_eq!(
            split_repeat("test_x[b-1-1-2]"),
            Some(("test_x[b-1]".into(), 1, 2))
        );
        assert_eq!(split_repeat("test_x"), None);
        assert_eq!(split_repeat("test_x[a]"), None);
    }

    #[test]
    fn a_pytest_rerun_that_ends_skipped_keeps_its_failed_first_attempt() {
        // pytest-rerunfailures' shape (see tests/fixtures/junit/pytest-repeat-rerun.xml): the
        // failed attempt is a bare record, the rerun another record of the same name.
        let xml = r#"<?xml version="1.0" encoding="utf-8"?><testsuites name="pytest tests"><testsuite name="pytest" tests="2"><testcase classname="test_agent" name="test_refund" time="0.001" /><testcase classname="test_agent" name="test_refund" time="0.001"><skipped type="pytest.skip" message="skipped on retry" /></testcase><testcase classname="test_agent" name="test_lookup" time="0.001"><skipped type="pytest.skip" message="not here" /></testcase></testsuite></testsuites>"#;
        let doc = junit::parse(xml).expect("parses");
        assert_eq!(writer_of(&doc), Writer::Pytest);
        let Ok((trials, skipped, _)) = interpret(&doc, Writer::Pytest, false) else {
            panic!("interpreted");
        };
        assert_eq!(skipped.len(), 1, "only the test that never ran is skipped");
        // The skipped test is kept in place with no attempts, for settle_skipped_repeats.
        let trials: Vec<_> = trials
            .into_iter()
            .filter(|t| !t.attempts.is_empty())
            .collect();
        assert_eq!(trials.len(), 1);
        assert_eq!(trials[0].test, "test_agent::test_refund");
        assert!(!trials[0].attempts[0].passed, "its first attempt failed");
    }

    #[test]
    fn a_parameter_id_that_looks_like_a_repeat_is_left_alone() {
        let keys = vec![("m".to_string(), "test_p[1-2]".to_string())];
        assert!(pytest_repeats(&keys).is_empty());
    }
}
