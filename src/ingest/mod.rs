//! Result files written by real test runners and eval tools (JUnit XML; `go test -json`;
//! promptfoo, DeepEval and Inspect results; the JSON reports of Playwright, mocha, Jest and
//! Vitest) → first-attempt outcomes per test and ordinal.
//!
//! `gate ingest` judges test runs people already have. Each file is one run of the suite,
//! in the order given; each test case is a task, named `classname::name` without repeat
//! decorations; its records across the files, in that order, are its trials (ordinals 1..).
//! One file may also hold several repeats of a test (pytest-repeat's `test_x[3-20]`,
//! Playwright's `--repeat-each`): the repeat index orders them within the file.
//!
//! **First attempts only.** A retry that passed is not the first attempt, so each trial keeps
//! its attempts in order and only attempt 1 is ever graded; the later ones are recorded as
//! later attempts (like transport retries in `gate run`), for the score vector. How each
//! writer records retries was read from its real output (see scripts/gen-junit-fixtures.sh):
//!
//! - **cargo-nextest** (and the Surefire convention it follows): a test that passed on a
//!   retry has `<flakyFailure>` children, the failed attempts before the pass; a test that
//!   failed every attempt has `<failure>` (attempt 1) and `<rerunFailure>` children (the
//!   attempts after it). Either way attempt 1 failed. These elements are honoured in any file.
//! - **pytest-rerunfailures**: a rerun is *another `<testcase>` record with the same name*
//!   in the same run, and the failed attempts carry no failure element at all. So a name
//!   recorded k times in one pytest run is one trial whose first k − 1 attempts failed.
//! - **jest-junit** records nothing about `jest.retryTimes`, unless a
//!   `junitTestCaseProperties.js` writes Jest's `invocations` count as a `<property>`: then
//!   `invocations = k` means k − 1 failed attempts before the recorded result.
//! - **Playwright**'s JUnit reporter, jest-junit without `invocations`, and writers gate does
//!   not recognise record a test that passed on a retry exactly like a first-attempt pass.
//!   Such files are refused with a message that says so, unless the caller vouches that
//!   the suite ran with retries off (`--assume-retries-off`).
//!
//! Where things are: `read.rs` opens a file (bounded), detects its format and hands it to its
//! reader ([`junit`] and `junit_trials.rs` for JUnit, [`gotest`], [`promptfoo`], [`deepeval`],
//! [`inspect`]; the JSON reports of JS test runners in [`js`]); [`pairing`] pairs head and base
//! runs for `--base`; [`audit`] is `gate explain --junit`. The trials become the ledger's
//! tasks, header and rows in `judge.rs` ([`crate::judge`]), above this module.
//!
//! Reading is bounded: a file larger than [`MAX_FILE_BYTES`] is refused before it is parsed,
//! and [`junit`] keeps a fixed amount of text per failure.

pub mod audit;
pub mod capped;
pub mod deepeval;
#[cfg(test)]
mod fuzz;
pub mod gotest;
pub mod identity;
pub mod inspect;
pub mod js;
pub mod json_nan;
pub mod json_split;
pub mod junit;
mod junit_trials;
pub mod pairing;
pub mod promptfoo;
mod read;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::PathBuf;

pub(crate) use junit_trials::split_repeat;
pub use junit_trials::writer_of;
pub use read::{read_run, read_runs};

/// Largest JUnit file read (64 MiB): far above real suites (10,000 test cases take about
/// 2 MB), far below what would strain a CI runner's memory.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

/// The most retries, invocations, repeats or epochs gate reads from a result file, and the
/// most attempts after the first that one trial may hold. Real suites retry a test a handful
/// of times and run a few hundred epochs; a count beyond this is a damaged or hostile file,
/// and honouring it would allocate one attempt per unit (`invocations="4000000000"` asked
/// for 256 GB). Every count a reader takes from a file goes through [`Count`], which refuses
/// a larger one before anything is allocated (docs/ingest.md, "Bounds").
pub const MAX_COUNT: u64 = 10_000;

/// The most test-case records gate reads from one result file. A real suite's run holds a
/// few thousand (the largest gate was shown, 150,000, is already past what one ledger header
/// can list); a JUnit file of 63 MiB can hold 2.7 million tiny ones, which cost gigabytes
/// once read. The JUnit reader counts them as it streams and refuses the next one (exit 2,
/// with its line and column) before it is kept; the JSON readers count their lists' elements
/// as they parse ([`capped`]), and the `go test -json` reader its test runs, at the same cap.
pub const MAX_CASES_PER_FILE: u64 = 200_000;

/// The most attempts after the first (retries, reruns, `<flakyFailure>`s, `invocations − 1`,
/// `error_retries`) gate reads from one result file, summed over its tests: each becomes a
/// ledger row. [`MAX_COUNT`] bounds one test's; this bounds a file's, so that many tests each
/// just within the per-test cap (a file of 24,000 tests with 10,000 `<flakyFailure/>` each
/// would write a ledger of hundreds of MB) are refused before the attempts are built.
pub const MAX_RETRIES_PER_FILE: u64 = 100_000;

/// Add `n` attempts after the first to a file's running total `spent`, or say why the file is
/// refused ([`MAX_RETRIES_PER_FILE`]). Called by every reader before it builds those attempts.
pub fn spend_retries(spent: &mut u64, n: u64) -> Result<(), String> {
    *spent = spent.saturating_add(n);
    if *spent > MAX_RETRIES_PER_FILE {
        Err(format!(
            "the file records more than {MAX_RETRIES_PER_FILE} attempts after the first (retries, reruns, \
             `invocations`), summed over its tests; gate reads at most that many from one result file \
             (docs/ingest.md, \"Bounds\")"
        ))
    } else {
        Ok(())
    }
}

/// A count read from a result file (Jest's `invocations`, mocha's `currentRetry`, Inspect's
/// `retries` and `epoch`, a JUnit `invocations` property): a whole number of at most
/// [`MAX_COUNT`]. The one parser for such numbers, so the bound is kept in one place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Count(pub u64);

impl Count {
    /// `n`, or why it is refused.
    pub fn new(n: u64, what: &str) -> Result<Count, String> {
        if n > MAX_COUNT {
            Err(format!(
                "{what} is {n}, more than the {MAX_COUNT} gate reads from a result file \
                 (retries, invocations, repeats and epochs are bounded: docs/ingest.md)"
            ))
        } else {
            Ok(Count(n))
        }
    }

    /// A count written as text (an XML attribute): a whole number within [`MAX_COUNT`].
    pub fn parse(text: &str, what: &str) -> Result<Count, String> {
        let t = text.trim();
        if t.is_empty() || !t.bytes().all(|b| b.is_ascii_digit()) {
            return Err(format!("{what} is `{text}`, not a whole number"));
        }
        // Digits only: a parse failure is an overflow, which is over the cap too; the message
        // shows the number as the file wrote it, not a saturated 18446744073709551615
        // (issue 29 review, B12).
        match t.parse::<u64>() {
            Ok(n) => Count::new(n, what),
            Err(_) => Err(format!(
                "{what} is {t}, more than the {MAX_COUNT} gate reads from a result file \
                 (retries, invocations, repeats and epochs are bounded: docs/ingest.md)"
            )),
        }
    }
}

impl<'de> serde::Deserialize<'de> for Count {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = u64::deserialize(d)?;
        Count::new(n, "a count").map_err(serde::de::Error::custom)
    }
}

/// Why a result file cannot be ingested. Every variant is invalid input (exit 2).
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// The file could not be opened or read.
    #[error("{}: cannot read the result file", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Not a regular file (a directory, FIFO or device).
    #[error("{}: not a regular file", path.display())]
    NotAFile {
        /// The path.
        path: PathBuf,
    },
    /// Over [`MAX_FILE_BYTES`].
    #[error("{}: larger than {} MiB; gate reads JUnit files up to that size", path.display(), MAX_FILE_BYTES >> 20)]
    TooLarge {
        /// The file.
        path: PathBuf,
    },
    /// Not JUnit XML.
    #[error("{}:{line}:{column}: not JUnit XML: {reason}", path.display())]
    NotJunit {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What is wrong.
        reason: String,
    },
    /// Two different test cases in one file that would get the same test id, so their
    /// trials would be merged into one test's.
    #[error("{}:{line}: {reason}", path.display())]
    SameId {
        /// The file.
        path: PathBuf,
        /// 1-based line of the second test case.
        line: u64,
        /// Which test cases, and why that is refused.
        reason: String,
    },
    /// A format in which a retry cannot be told apart from a first attempt.
    #[error("{}: {reason}", path.display())]
    RetriesInvisible {
        /// The file.
        path: PathBuf,
        /// Which writer, and what to do.
        reason: String,
    },
    /// A `go test -json`, promptfoo, DeepEval or Inspect file that does not read as one.
    #[error("{}:{line}:{column}: {reason}", path.display())]
    Invalid {
        /// The file.
        path: PathBuf,
        /// 1-based line (1 for a ZIP member's problem).
        line: u64,
        /// 1-based column.
        column: u64,
        /// What is wrong.
        reason: String,
    },
    /// A file that reads, but whose records are not first attempts gate may judge: cached
    /// replays, an aborted eval, reordered records.
    #[error("{}: {reason}", path.display())]
    Refused {
        /// The file.
        path: PathBuf,
        /// Why, and what to do instead.
        reason: String,
    },
    /// The same bytes given twice (the same path, a copy, a link, overlapping globs): one run
    /// of the suite would count as two.
    #[error(
        "{} and {}: the same file content (sha256 {}) given twice; each result file must be a \
         different run of the suite, so gate will not count one run twice. Give each run's file once",
        first.display(), second.display(), &sha256[..16]
    )]
    SameContent {
        /// The file read first.
        first: PathBuf,
        /// The later file with the same content.
        second: PathBuf,
        /// Their hex SHA-256.
        sha256: String,
    },
    /// Two files that are one run of the suite by what the tool recorded about it, though
    /// their bytes differ ([`check_distinct`]).
    #[error(
        "{} and {}: the same run of the suite given twice: {why}. Each result file must be a different \
         run, so gate will not count one run twice. Give each run's file once (docs/ingest.md, \"Evidence \
         has an identity\")",
        first.display(), second.display()
    )]
    SameRun {
        /// The file read first.
        first: PathBuf,
        /// The later file of the same run.
        second: PathBuf,
        /// What they share.
        why: String,
    },
    /// Two different test cases in different files that would get the same test id.
    #[error("{}: {reason}", path.display())]
    SameIdAcrossFiles {
        /// The later file.
        path: PathBuf,
        /// Which test cases, and why that is refused.
        reason: String,
    },
    /// Two different test ids that are one once secrets are redacted (`test_auth[<KEY_A>]`
    /// and `test_auth[<KEY_B>]` both read `test_auth[***]`), in one file or in two: their
    /// trials would be merged into one test's (review 47, c02).
    #[error("{}: {reason}", path.display())]
    SameIdOnceRedacted {
        /// The file (the later one, across files).
        path: PathBuf,
        /// The redacted id, and why that is refused.
        reason: String,
    },
    /// No `--format` was given and the content matches none gate reads.
    #[error(
        "{}: not a format gate reads (JUnit XML, `go test -json`, promptfoo results, DeepEval test run, Inspect log, \
         the JSON reports of Playwright, mocha, Jest and Vitest); \
         give `--format` if it is one of them",
        path.display()
    )]
    Unrecognised {
        /// The file.
        path: PathBuf,
    },
}

impl IngestError {
    /// The error with every text it quotes passed through `redact`: the paths, and the
    /// reasons, which quote test ids, runners' error messages, run ids and JUnit
    /// classnames as the file wrote them, before the run was redacted (review 47, c03, c04,
    /// c05). The one place a refusal of `gate ingest` and `gate explain --junit` is redacted
    /// before it is printed; a path redaction leaves unchanged is kept as it was, bytes and
    /// all.
    pub fn redact(self, redact: &dyn Fn(&str) -> String) -> IngestError {
        let path = |p: PathBuf| redact_path(p, redact);
        match self {
            IngestError::Io { path: p, source } => IngestError::Io {
                path: path(p),
                source,
            },
            IngestError::NotAFile { path: p } => IngestError::NotAFile { path: path(p) },
            IngestError::TooLarge { path: p } => IngestError::TooLarge { path: path(p) },
            IngestError::NotJunit {
                path: p,
                line,
                column,
                reason,
            } => IngestError::NotJunit {
                path: path(p),
                line,
                column,
                reason: redact(&reason),
            },
            IngestError::SameId {
                path: p,
                line,
                reason,
            } => IngestError::SameId {
                path: path(p),
                line,
                reason: redact(&reason),
            },
            IngestError::RetriesInvisible { path: p, reason } => IngestError::RetriesInvisible {
                path: path(p),
                reason: redact(&reason),
            },
            IngestError::Invalid {
                path: p,
                line,
                column,
                reason,
            } => IngestError::Invalid {
                path: path(p),
                line,
                column,
                reason: redact(&reason),
            },
            IngestError::Refused { path: p, reason } => IngestError::Refused {
                path: path(p),
                reason: redact(&reason),
            },
            IngestError::SameContent {
                first,
                second,
                sha256,
            } => IngestError::SameContent {
                first: path(first),
                second: path(second),
                sha256,
            },
            IngestError::SameRun { first, second, why } => IngestError::SameRun {
                first: path(first),
                second: path(second),
                why: redact(&why),
            },
            IngestError::SameIdAcrossFiles { path: p, reason } => IngestError::SameIdAcrossFiles {
                path: path(p),
                reason: redact(&reason),
            },
            IngestError::SameIdOnceRedacted { path: p, reason } => {
                IngestError::SameIdOnceRedacted {
                    path: path(p),
                    reason: redact(&reason),
                }
            }
            IngestError::Unrecognised { path: p } => IngestError::Unrecognised { path: path(p) },
        }
    }
}

/// `path` with its text passed through `redact`: a result file named after a job token
/// (review 47, c05). Unchanged (a non-UTF-8 name too) when redaction finds nothing, since
/// the lossy text of such a name is not the name.
fn redact_path(path: PathBuf, redact: &dyn Fn(&str) -> String) -> PathBuf {
    let text = path.to_string_lossy();
    let red = redact(&text);
    if red == text {
        path
    } else {
        PathBuf::from(red)
    }
}

/// Where a reader stopped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 1-based line.
    pub line: u64,
    /// 1-based column.
    pub column: u64,
    /// What is wrong.
    pub reason: String,
}

/// The result formats `gate ingest` reads: `--format` of `gate ingest` (clap's list of its
/// values) and a suite task's `format:` in a plan (its schema), one enum for both. Each
/// variant's doc comment is `--help`'s line; `schemars(description)` the schema's.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize, schemars::JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
#[schemars(
    rename = "ResultFormat",
    description = "A result-file format `gate ingest` reads."
)]
pub enum Format {
    /// JUnit XML (nextest, pytest, jest-junit, Playwright, gotestsum, promptfoo, DeepEval).
    #[schemars(
        description = "JUnit XML (pytest, nextest, jest-junit, vitest, mocha, Playwright, gotestsum)."
    )]
    Junit,
    /// `go test -json` events (or gotestsum's `--jsonfile`).
    #[schemars(description = "`go test -json` events.")]
    GoJson,
    /// promptfoo's `-o results.json` (or `.jsonl`).
    #[schemars(description = "promptfoo's results JSON.")]
    Promptfoo,
    /// DeepEval's `test_run_*.json`.
    #[schemars(description = "DeepEval's test-run JSON.")]
    Deepeval,
    /// An Inspect AI log (`.eval` or `.json`).
    #[schemars(description = "An Inspect AI log.")]
    Inspect,
    /// Playwright Test's `--reporter=json`.
    #[schemars(description = "Playwright Test's JSON report.")]
    PlaywrightJson,
    /// mocha's `--reporter json`.
    #[schemars(description = "mocha's JSON report.")]
    MochaJson,
    /// `jest --json`, or Vitest's `--reporter=json`.
    #[schemars(description = "`jest --json` or Vitest's JSON report.")]
    JestJson,
}

impl Format {
    /// The name `--format` takes.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Junit => "junit",
            Format::GoJson => "go-json",
            Format::Promptfoo => "promptfoo",
            Format::Deepeval => "deepeval",
            Format::Inspect => "inspect",
            Format::PlaywrightJson => "playwright-json",
            Format::MochaJson => "mocha-json",
            Format::JestJson => "jest-json",
        }
    }
}

/// Recognise a result file's format from its first bytes. Cheap: it looks at a prefix and
/// a few keys, and the reader then checks the whole file. Anything that is not a ZIP or a
/// JSON object is read as JUnit (whose reader says where it stops being XML); a JSON
/// document of no known shape is `None`.
pub fn detect(bytes: &[u8]) -> Option<Format> {
    if bytes.starts_with(b"PK\x03\x04") {
        return Some(Format::Inspect);
    }
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(64 << 10)]);
    let trimmed = head.trim_start_matches('\u{feff}').trim_start();
    if !trimmed.starts_with('{') {
        // XML, or nothing gate knows: the JUnit reader says where it stops being JUnit.
        return Some(Format::Junit);
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if gotest::looks_like(text) {
        return Some(Format::GoJson);
    }
    let first_line = trimmed.lines().next().unwrap_or("");
    if promptfoo::looks_like_jsonl(first_line) {
        return Some(Format::Promptfoo);
    }
    // One JSON document: which top-level keys it has.
    let keys = top_level_keys(text)?;
    let has = |k: &str| keys.iter().any(|x| x == k);
    if has("eval") && (has("samples") || has("status")) {
        Some(Format::Inspect)
    } else if has("testCases") || has("testRunId") || has("test_cases") {
        Some(Format::Deepeval)
    } else if has("results") && (has("evalId") || has("config")) {
        Some(Format::Promptfoo)
    } else if js::playwright::looks_like(&keys) {
        Some(Format::PlaywrightJson)
    } else if js::mocha::looks_like(&keys) {
        Some(Format::MochaJson)
    } else if js::jest::looks_like(&keys) {
        Some(Format::JestJson)
    } else {
        None
    }
}

/// The keys of a JSON object document, its values skipped (bare `NaN` tolerated).
fn top_level_keys(text: &str) -> Option<Vec<String>> {
    // A map of ignored values: serde_json reads each key and skips its value (only which keys
    // are present matters, not their order or repeats).
    let keys: BTreeMap<String, serde::de::IgnoredAny> =
        serde_json::from_str(&json_nan::to_null(text)).ok()?;
    Some(keys.into_keys().collect())
}

/// At most [`junit::MAX_TEXT`] characters.
pub(crate) fn cut_text(s: &str) -> String {
    s.chars().take(junit::MAX_TEXT).collect()
}

/// The test runner that wrote a file, as far as its JUnit shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Writer {
    /// cargo-nextest (`<testsuites name="nextest-run">`).
    Nextest,
    /// pytest (`<testsuites name="pytest tests">`).
    Pytest,
    /// Jest with jest-junit (`<testsuites name="jest tests">`, or `invocations` properties).
    Jest,
    /// Playwright's JUnit reporter (`<testsuites id="…">`, `›` in test names).
    Playwright,
    /// gotestsum's JUnit (`<property name="go.version">`): failures first, not run order.
    Gotestsum,
    /// Vitest's JUnit reporter (`<testsuites name="vitest tests">`): retries invisible.
    Vitest,
    /// mocha-junit-reporter (`<testsuites name="Mocha Tests">`): retries invisible.
    Mocha,
    /// promptfoo's JUnit (`test N: description` names, one record per repeat).
    PromptfooJunit,
    /// `go test -json` events.
    GoTest,
    /// promptfoo's results file.
    Promptfoo,
    /// DeepEval's test run file.
    Deepeval,
    /// An Inspect AI log.
    Inspect,
    /// Playwright's JSON reporter.
    PlaywrightJson,
    /// mocha's JSON reporter.
    MochaJson,
    /// `jest --json`.
    JestJson,
    /// Vitest's JSON reporter.
    VitestJson,
    /// Anything else.
    Other,
}

impl Writer {
    /// A short name for messages and the ledger.
    pub fn as_str(self) -> &'static str {
        match self {
            Writer::Nextest => "cargo-nextest",
            Writer::Pytest => "pytest",
            Writer::Jest => "jest-junit",
            Writer::Playwright => "Playwright",
            Writer::Gotestsum => "gotestsum",
            Writer::Vitest => "Vitest",
            Writer::Mocha => "mocha-junit-reporter",
            Writer::PromptfooJunit => "promptfoo (JUnit)",
            Writer::GoTest => "go test -json",
            Writer::Promptfoo => "promptfoo",
            Writer::Deepeval => "DeepEval",
            Writer::Inspect => "Inspect AI",
            Writer::PlaywrightJson => "Playwright (JSON)",
            Writer::MochaJson => "mocha (JSON)",
            Writer::JestJson => "Jest (--json)",
            Writer::VitestJson => "Vitest (JSON)",
            Writer::Other => "unrecognised writer",
        }
    }
}

/// How to read the files.
#[derive(Debug, Clone)]
pub struct Options {
    /// The caller vouches that the suite ran with retries off: every record is a first
    /// attempt, and a name recorded several times in one file is several repeats.
    pub assume_retries_off: bool,
    /// The format, instead of detecting it from the content.
    pub format: Option<Format>,
    /// Inspect: the scorer whose value grades a sample (required when there are several).
    pub scorer: Option<String>,
    /// Inspect: a numeric score at or above this passes (Inspect's own `pass_at` uses 1.0).
    pub pass_threshold: f64,
    /// An errored first attempt (Inspect's `error_retries`, promptfoo's errors) is a
    /// declared fault (unavailable) instead of a failure.
    pub errors_unavailable: bool,
    /// Inspect: read a log whose status is not `success` (its cancelled samples are no trials).
    pub allow_incomplete: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            assume_retries_off: false,
            format: None,
            scorer: None,
            pass_threshold: 1.0,
            errors_unavailable: false,
            allow_incomplete: false,
        }
    }
}

/// What a tool's own summary said about a test, to set against its first attempts
/// (`gate explain`): an Inspect reducer's value, a retry setting's green.
#[derive(Debug, Clone, PartialEq)]
pub struct Claim {
    /// The test's id.
    pub test: String,
    /// What the tool reported, in its words (`max says C`).
    pub says: String,
}

/// One execution of a test.
#[derive(Debug, Clone, PartialEq)]
pub struct Attempt {
    /// Whether it passed.
    pub passed: bool,
    /// A declared fault (an eval's errored sample under `--errors unavailable`): neither a
    /// pass nor a failure.
    pub unavailable: bool,
    /// Wall time, seconds (0 when the writer did not record it).
    pub duration_s: f64,
    /// Why it failed, one line (empty for a pass).
    pub message: String,
    /// The head of the failure text (empty for a pass).
    pub detail: String,
}

impl Attempt {
    /// The outcome this attempt records: a declared fault (unavailable), a pass or a failure.
    pub fn outcome(&self) -> crate::model::Outcome {
        use crate::model::Outcome;
        if self.unavailable {
            Outcome::Unavailable
        } else if self.passed {
            Outcome::Pass
        } else {
            Outcome::Fail
        }
    }

    /// Its ledger row: attempt `attempt` (1-based) of trial `trial` of `task`; `side` for a
    /// compare ledger. One place for `gate ingest` and `gate ingest --base`, so a declared
    /// fault is recorded alike in both.
    pub fn row(
        &self,
        task: &str,
        trial: u64,
        attempt: u32,
        started_at: &str,
        side: Option<crate::pair_sampler::Side>,
    ) -> crate::ledger::AttemptRow {
        crate::ledger::AttemptRow {
            task: task.to_string(),
            trial,
            attempt,
            started_at: started_at.into(),
            duration_s: self.duration_s,
            exit_code: None,
            signal: None,
            check_exit: None,
            fault: self.unavailable.then_some(crate::model::Fault::Transport),
            outcome: self.outcome(),
            graded: attempt == 1,
            detail: crate::ledger::AttemptDetail {
                reason: (!self.passed).then(|| self.message.clone()),
                stderr_tail: self.detail.clone(),
                ..Default::default()
            }
            .into(),
            side,
            pair_position: None,
            suite_run: None,
        }
    }
}

/// One trial of one test in one file: attempt 1 first, never empty.
#[derive(Debug, Clone, PartialEq)]
pub struct Trial {
    /// The test's id (`classname::name`, repeat decoration removed).
    pub test: String,
    /// Repeat index within the file (pytest-repeat's `i` in `[i-M]`, else the occurrence).
    pub repeat: u64,
    /// Attempts in order; `attempts[0]` is the graded one.
    pub attempts: Vec<Attempt>,
}

/// One result file, read.
#[derive(Debug, Clone)]
pub struct RunFile {
    /// The path as given.
    pub path: PathBuf,
    /// Hex SHA-256 of the bytes read.
    pub sha256: String,
    /// Who wrote it.
    pub writer: Writer,
    /// Its trials, each test's in repeat order.
    pub trials: Vec<Trial>,
    /// `<testcase>` records skipped by the runner: no trial.
    pub skipped: u64,
    /// The ids of the tests skipped in this run, one per skipped record: a test with no trial in a run
    /// is missing from it, and counted as a failed trial, unless it is listed here
    /// ([`histories`]).
    pub skipped_tests: Vec<String>,
    /// Indices into `trials` of the failed trials that stand for a skipped repeat of a test
    /// whose other repeats in this file ran ([`settle_skipped_repeats`]): like a test skipped
    /// in one run while other runs ran it, no observation on `--base`'s side ([`History::absent`]).
    pub skipped_repeats: Vec<usize>,
    /// The format read, and whether it was detected (not given with `--format`).
    pub format: Format,
    /// Whether the format was detected from the content.
    pub detected: bool,
    /// What the reader left out or ignored, one sentence each, for the terminal.
    pub notes: Vec<String>,
    /// What the tool's own summary reported, for `gate explain`.
    pub claims: Vec<Claim>,
    /// For JUnit: each test id and the (classname, name) it was made of, so that two files
    /// cannot merge two different tests under one id ([`check_same_ids`]). Empty for formats
    /// whose ids are not joined from parts that can collide.
    pub origins: Origins,
    /// What the tool recorded about the run itself (its run ids, its timestamps): with the
    /// parsed records, the run's identity beyond its bytes ([`check_distinct`]).
    pub identity: Identity,
    /// Set by [`RunFile::redact`]: each test id that redaction changed (or that a changed id
    /// became), with every id as read that became it, so that [`check_redacted_ids`] can
    /// refuse two different tests merged by a secret. Empty when redaction changed no id,
    /// which is nearly always. These raw ids hold secrets: never printed.
    pub raw_ids: BTreeMap<String, BTreeSet<String>>,
    /// Test ids a reader encoded from JSON values ([`JsonIds`]), redacted by
    /// [`RunFile::redact`] from those values, then emptied.
    pub json_ids: JsonIds,
}

/// Test ids a reader made by encoding a JSON value (promptfoo's `vars` of a test without a
/// description), by id: the value, and the text after it in the id (` [prompt]`). Redaction
/// of the encoded text would miss a secret that JSON's escaping changed, or a `redact:`
/// pattern written for the value as it is, so such an id is redacted value by value and
/// encoded again (review 47, c09).
pub type JsonIds = HashMap<String, (serde_json::Value, String)>;

/// `value` with every string in it, object keys too, passed through `redact`.
fn redact_json(value: &serde_json::Value, redact: &dyn Fn(&str) -> String) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(s) => Value::String(redact(s)),
        Value::Array(items) => Value::Array(items.iter().map(|v| redact_json(v, redact)).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (redact(k), redact_json(v, redact)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// What a tool records about one run of the suite, beyond its outcomes: the identity
/// [`check_distinct`] compares, so that a re-saved copy of a run (another line ending, a BOM,
/// keys reordered, a `.eval` converted to `.json`) is not counted as another run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Identity {
    /// Ids the tool gives the run, labelled (`nextest run uuid …`, `Inspect eval_id …`,
    /// `go test -json first event at …`): two files with one of them in common are one run.
    pub run_ids: Vec<String>,
    /// Timestamps the tool wrote (a suite's or a test case's `timestamp`), in document order:
    /// part of the records' digest, and what makes it tell runs apart.
    pub stamps: Vec<String>,
    /// The pieces of evidence the run writes once (each JUnit `<testsuite>`, each test run of
    /// a `go test -json` stream), compared one by one across files ([`identity`]).
    pub units: Vec<identity::Unit>,
}

/// Test id → the (classname, name) a JUnit record made it of.
pub type Origins = HashMap<String, (String, String)>;

impl RunFile {
    /// `path` as `writer` wrote it in `format`, with these trials and nothing skipped, noted,
    /// claimed or recorded of its identity; the reader sets what its format gives, and
    /// [`read_run`] the hash and whether the format was detected.
    pub fn new(path: &std::path::Path, writer: Writer, format: Format, trials: Vec<Trial>) -> Self {
        RunFile {
            path: path.to_path_buf(),
            sha256: String::new(),
            writer,
            trials,
            skipped: 0,
            skipped_tests: Vec::new(),
            skipped_repeats: Vec::new(),
            format,
            detected: false,
            notes: Vec::new(),
            claims: Vec::new(),
            origins: Origins::new(),
            identity: Identity::default(),
            raw_ids: BTreeMap::new(),
            json_ids: JsonIds::new(),
        }
    }

    /// Pass every string the file gave through `redact` (the run's redactor; a closure, so that
    /// ingest names nothing of the runner), at the point it enters gate:
    /// the file's path, test ids (one a reader encoded from JSON values value by value:
    /// [`JsonIds`]), failure messages and details, the reader's notes, the tool's claims and the
    /// JUnit origins. A secret a test prints into its own name (a parametrize id)
    /// or a runner writes into the file's name then reaches no ledger, report or terminal.
    /// Two ids that differ only by a secret become one: the ids as read are kept in
    /// [`RunFile::raw_ids`], and [`check_redacted_ids`] refuses such a pair (the readers'
    /// duplicate checks ran before redaction, on the ids as read; review 47, c02).
    pub fn redact(&mut self, redact: impl Fn(&str) -> String) {
        self.path = redact_path(std::mem::take(&mut self.path), &redact);
        // Each id redacted, `None` where redaction leaves it as it is; applied only once every
        // id as read that becomes a changed one is known.
        let ids = || {
            self.trials
                .iter()
                .map(|t| &t.test)
                .chain(&self.skipped_tests)
        };
        let json_ids = std::mem::take(&mut self.json_ids);
        let redact_id = |raw: &String| match json_ids.get(raw) {
            // Value by value, then the whole text again: a secret written as a JSON number,
            // or across a key and its value, is still text of the id.
            Some((value, rest)) => redact(&format!("{}{}", redact_json(value, &redact), rest)),
            None => redact(raw),
        };
        let reds: Vec<Option<String>> = ids()
            .map(|raw| Some(redact_id(raw)).filter(|red| red != raw))
            .collect();
        let mut raw_ids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (raw, red) in ids().zip(&reds) {
            if let Some(red) = red {
                raw_ids.entry(red.clone()).or_default().insert(raw.clone());
            }
        }
        if !raw_ids.is_empty() {
            // An id that redaction leaves as it is but that reads like a changed one
            // (`test_auth[***]` written so in the file) is one more id that becomes it.
            for (raw, red) in ids().zip(&reds) {
                if red.is_none()
                    && let Some(raws) = raw_ids.get_mut(raw)
                {
                    raws.insert(raw.clone());
                }
            }
            let mut reds = reds.into_iter();
            for id in self
                .trials
                .iter_mut()
                .map(|t| &mut t.test)
                .chain(&mut self.skipped_tests)
            {
                if let Some(Some(red)) = reds.next() {
                    *id = red;
                }
            }
        }
        self.raw_ids = raw_ids;
        for t in &mut self.trials {
            for a in &mut t.attempts {
                a.message = redact(&a.message);
                a.detail = redact(&a.detail);
            }
        }
        for n in &mut self.notes {
            *n = redact(n);
        }
        for c in &mut self.claims {
            c.test = redact(&c.test);
            c.says = redact(&c.says);
        }
        // The origins' ids and parts, redacted like the ids: they are quoted by
        // [`check_same_ids`]. Two ids that collide here are refused by
        // [`check_redacted_ids`], which runs first.
        self.origins = std::mem::take(&mut self.origins)
            .into_iter()
            .map(|(id, (class, name))| (redact(&id), (redact(&class), redact(&name))))
            .collect();
    }
}

/// Every test's trials across runs: ordinal k is the k-th trial in (file order, repeat
/// order). Tests are listed in order of first appearance.
#[derive(Debug, Clone)]
pub struct History {
    /// The test's id.
    pub test: String,
    /// Trials by ordinal (index 0 is ordinal 1).
    pub trials: Vec<Vec<Attempt>>,
    /// Where each trial came from, by ordinal: (the index of its file among the files of its
    /// side, 0-based; its place among this test's trials in that file, 0-based). `--base`
    /// pairs head's and base's trials by it, never by ordinal alone.
    pub places: Vec<(usize, usize)>,
    /// By ordinal: true where the run had no record of the test (missing, or skipped while
    /// other runs ran it), so the trial is a failure standing in for it. `--base` reads such a
    /// trial on base as no observation, never as a base failure, which would cancel head's
    /// failure in the pair (review 9, a04).
    pub absent: Vec<bool>,
}

/// The message of the failed trial that stands for a test missing from a run.
pub fn missing_message(path: &std::path::Path) -> String {
    format!(
        "no record of this test in {}, though other runs have it: a test missing from a run \
         (crashed, or left out of the report) counts as a failed trial of that run",
        path.display()
    )
}

/// The message of the failed trial that stands for a test skipped in one run while other
/// runs ran it.
pub fn skipped_message(path: &std::path::Path) -> String {
    format!(
        "skipped in {}, though other runs ran it: a test that skips in some runs only (code under \
         test raising `unittest.SkipTest`, `pytest.skip`) has no result there, and counts as a \
         failed trial of that run",
        path.display()
    )
}

/// The message of the failed trial that stands for a skipped repeat of a test whose other
/// repeats in the same file ran (`go test -count=N`, pytest-repeat, `--repeat-each`).
pub fn skipped_repeat_message(path: &std::path::Path, repeat: u64) -> String {
    format!(
        "repeat {repeat} skipped in {}, though other repeats of this test in that file ran: a test that \
         skips in some repeats only (code under test calling `t.Skip`, raising `unittest.SkipTest`, \
         `pytest.skip`) has no result there, and counts as a failed trial of that repeat",
        path.display()
    )
}

/// Settle the skipped records a reader kept in place among a file's trials (a [`Trial`] with
/// no attempts; only the readers of files that hold repeats keep them: `go test -json`,
/// JUnit, Playwright's JSON). A test skipped in every repeat of the file is a skip, as
/// before: its placeholders are dropped (the reader listed it in `skipped_tests`). A test
/// with both run and skipped repeats gets a failed trial in each skipped repeat's place
/// ([`skipped_repeat_message`]): the rule [`histories`] applies across files (review 7, c35)
/// applied within one, where `go test -count=20 -json` and pytest-repeat put every repeat.
/// Dropping the skips instead let a test that skips exactly when it fails read as all
/// passes (review 47, c21). Such trials are counted out of `skipped` and listed in
/// `skipped_repeats`.
pub fn settle_skipped_repeats(run: &mut RunFile) {
    if run.trials.iter().all(|t| !t.attempts.is_empty()) {
        return;
    }
    let ran: std::collections::HashSet<String> = run
        .trials
        .iter()
        .filter(|t| !t.attempts.is_empty())
        .map(|t| t.test.clone())
        .collect();
    let mut trials = Vec::with_capacity(run.trials.len());
    for mut t in std::mem::take(&mut run.trials) {
        if t.attempts.is_empty() {
            if !ran.contains(&t.test) {
                continue;
            }
            t.attempts.push(Attempt {
                passed: false,
                unavailable: false,
                duration_s: 0.0,
                message: skipped_repeat_message(&run.path, t.repeat),
                detail: String::new(),
            });
            run.skipped = run.skipped.saturating_sub(1);
            run.skipped_repeats.push(trials.len());
        }
        trials.push(t);
    }
    run.trials = trials;
}

/// Merge the runs, in the order given, into per-test histories.
///
/// Each file is one run of the suite, so every test that any of the files has is expected in
/// each of them. A test with no record at all in a run (neither a trial nor a skipped
/// record) is **missing** from it: its trial of that run is a failure (the test crashed the
/// runner, or its record was left out), in that run's place. Dropping it would shift the
/// test's later trials to earlier ordinals, which a sequential rule decides on and `--base`
/// pairs by (a missing failure would then be read as a later pass: issue 29, B5). A test
/// skipped in a run while other runs ran it is a failed trial there too ([`skipped_message`];
/// review 7, c35), as is a repeat skipped within a file whose other repeats ran
/// ([`settle_skipped_repeats`], review 47, c21); a test skipped in every run has no trial at all.
pub fn histories(runs: Vec<RunFile>) -> Vec<History> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<History> = Vec::new();
    for run in &runs {
        for t in &run.trials {
            if !index.contains_key(&t.test) {
                index.insert(t.test.clone(), out.len());
                out.push(History {
                    test: t.test.clone(),
                    trials: Vec::new(),
                    places: Vec::new(),
                    absent: Vec::new(),
                });
            }
        }
    }
    // Per test, the run that last gave it a trial, and how many it gave there.
    let mut seen: Vec<(usize, usize)> = vec![(usize::MAX, 0); out.len()];
    for (r, run) in runs.into_iter().enumerate() {
        let skipped: std::collections::HashSet<&str> =
            run.skipped_tests.iter().map(String::as_str).collect();
        let mut present = vec![false; out.len()];
        for t in &run.trials {
            present[index[&t.test]] = true;
        }
        for (i, h) in out.iter_mut().enumerate() {
            if !present[i] {
                // A test that ran in other runs and is skipped in this one has no result
                // here: code under test that raises `unittest.SkipTest` or calls
                // `pytest.skip` only when it fails would otherwise vanish from exactly the
                // runs it fails in (review 7, c35). A test skipped in every run has no
                // history and stays skipped.
                let message = if skipped.contains(h.test.as_str()) {
                    skipped_message(&run.path)
                } else {
                    missing_message(&run.path)
                };
                h.trials.push(vec![Attempt {
                    passed: false,
                    unavailable: false,
                    duration_s: 0.0,
                    message,
                    detail: String::new(),
                }]);
                h.places.push((r, 0));
                h.absent.push(true);
            }
        }
        let stand_ins: std::collections::HashSet<usize> =
            run.skipped_repeats.iter().copied().collect();
        for (n, t) in run.trials.into_iter().enumerate() {
            let i = index[&t.test];
            let k = match seen[i] {
                (last, k) if last == r => k,
                _ => 0,
            };
            seen[i] = (r, k + 1);
            out[i].trials.push(t.attempts);
            out[i].places.push((r, k));
            out[i].absent.push(stand_ins.contains(&n));
        }
    }
    out
}

/// A canonical digest of a run's parsed records (test ids, repeats, and every attempt's
/// outcome, duration, message and detail, in any order) with the timestamps the tool wrote
/// (as a set); `None` when
/// the run records no timestamp. Without one, two legitimate runs of a deterministic suite can
/// give the same records (a Jest duration is whole milliseconds, a synthetic or fast suite's
/// times repeat), and nothing tells them apart from one run saved twice; such files are
/// compared by bytes and run ids only.
pub fn records_digest(run: &RunFile) -> Option<String> {
    use sha2::Digest as _;
    if run.identity.stamps.is_empty() {
        return None;
    }
    let mut h = sha2::Sha256::new();
    // Length-prefixed fields: no two different record lists serialise alike.
    let mut field = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    // Each trial's record hashed on its own, then the digests sorted: a copy whose records a
    // merger reordered is the same run (review 7, c20); so are its stamps, as a set.
    let mut records: Vec<[u8; 32]> = run
        .trials
        .iter()
        .map(|t| {
            let mut r = sha2::Sha256::new();
            let mut field = |b: &[u8]| {
                r.update((b.len() as u64).to_le_bytes());
                r.update(b);
            };
            field(t.test.as_bytes());
            field(&t.repeat.to_le_bytes());
            field(&(t.attempts.len() as u64).to_le_bytes());
            for a in &t.attempts {
                field(&[a.passed as u8, a.unavailable as u8]);
                field(&a.duration_s.to_bits().to_le_bytes());
                field(a.message.as_bytes());
                field(a.detail.as_bytes());
            }
            r.finalize().into()
        })
        .collect();
    records.sort_unstable();
    for r in &records {
        field(r);
    }
    field(b"stamps");
    let mut stamps: Vec<&String> = run.identity.stamps.iter().collect();
    stamps.sort_unstable();
    for s in stamps {
        field(s.as_bytes());
    }
    Some(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// Refuse two result files that are the same run of the suite: each file is one run, so one
/// run given twice would count as several. Three checks, across every file of one ingest
/// (base and head), each naming both files:
/// - the same bytes (a path given twice, a copy, a symlink, overlapping globs), by SHA-256;
/// - a run id the tool recorded in both (nextest's `uuid`, Inspect's `eval_id`/`run_id`, the
///   time of a `go test -json` stream's first event: a cut-off prefix of a stream shares it);
/// - the same parsed records *with their timestamps and durations* ([`records_digest`]): a
///   copy re-saved with other line endings, a BOM, other whitespace or reordered keys. Equal
///   outcomes alone are not refused: two runs of a deterministic suite may have them;
/// - and then the same *piece* of a run in two files or twice in one ([`identity`]): a
///   `<testsuite>` or a go test run, so that a padded, cut or split copy is still one run.
pub fn check_distinct<'r>(runs: impl IntoIterator<Item = &'r RunFile>) -> Result<(), IngestError> {
    let runs: Vec<&RunFile> = runs.into_iter().collect();
    let mut bytes: HashMap<&str, &PathBuf> = HashMap::new();
    let mut ids: HashMap<&str, &PathBuf> = HashMap::new();
    let mut records: HashMap<String, &PathBuf> = HashMap::new();
    for &run in &runs {
        if let Some(first) = bytes.insert(run.sha256.as_str(), &run.path) {
            return Err(IngestError::SameContent {
                first: first.clone(),
                second: run.path.clone(),
                sha256: run.sha256.clone(),
            });
        }
        for id in &run.identity.run_ids {
            if let Some(first) = ids.insert(id.as_str(), &run.path) {
                return Err(IngestError::SameRun {
                    first: first.clone(),
                    second: run.path.clone(),
                    why: format!("both record the same run ({})", untrusted_line(id)),
                });
            }
        }
        if let Some(digest) = records_digest(run)
            && let Some(first) = records.insert(digest, &run.path)
        {
            return Err(IngestError::SameRun {
                first: first.clone(),
                second: run.path.clone(),
                why: "their records are the same, test by test, with the same timestamps and durations \
                      (a copy of one run saved again)"
                    .into(),
            });
        }
    }
    // Below the file: a run padded, cut or split is still made of the same pieces.
    identity::check_units(runs)
}

/// One line of untrusted text, for a message.
fn untrusted_line(s: &str) -> String {
    crate::untrusted::one_line(s).to_string()
}

/// Refuse two different test ids that became one when secrets were redacted
/// ([`RunFile::redact`]): `test_auth[<KEY_A>]`, which passes, and `test_auth[<KEY_B>]`, which
/// always fails, would otherwise both be the test `test_auth[***]`, and the failing one's
/// trials would hide among the passing one's (review 47, c02). The readers' duplicate checks
/// ran on the ids as read, so this is the check after redaction: within one file, and across
/// every file of one ingest (base and head: tests are matched by id across all of them).
/// `gate run`'s suites refuse any id recorded twice in a run, which covers the same case
/// there. The message names the redacted id only.
pub fn check_redacted_ids<'r>(
    runs: impl IntoIterator<Item = &'r RunFile>,
) -> Result<(), IngestError> {
    let runs: Vec<&RunFile> = runs.into_iter().collect();
    let refuse = |path: &PathBuf, red: &str, where_: String| IngestError::SameIdOnceRedacted {
        path: path.clone(),
        reason: format!(
            "different test ids {where_} all read `{}` once secrets are redacted (they differ only where a \
             secret's value or a `redact:` pattern matched); gate cannot tell their trials apart and will \
             not merge them into one test. Give the tests ids that differ outside the secret (pytest's \
             `ids=`, a name instead of the credential)",
            untrusted_line(red)
        ),
    };
    // Per redacted id: the id as read in the file that first had it, and that file.
    let mut first: HashMap<&str, (&str, &PathBuf)> = HashMap::new();
    for run in &runs {
        if let Some((red, raws)) = run.raw_ids.iter().find(|(_, raws)| raws.len() > 1) {
            return Err(refuse(
                &run.path,
                red,
                format!("({} of them) in this file", raws.len()),
            ));
        }
    }
    // Across files: only the ids redaction changed somewhere can collide.
    if runs.iter().all(|r| r.raw_ids.is_empty()) {
        return Ok(());
    }
    let changed: BTreeSet<&str> = runs
        .iter()
        .flat_map(|r| r.raw_ids.keys().map(String::as_str))
        .collect();
    for run in &runs {
        let ids = run
            .trials
            .iter()
            .map(|t| t.test.as_str())
            .chain(run.skipped_tests.iter().map(String::as_str));
        for red in ids.filter(|id| changed.contains(id)) {
            // One id as read per redacted id in this file (checked above): that one, or the
            // id itself where redaction left it as it was.
            let raw = run
                .raw_ids
                .get(red)
                .and_then(|raws| raws.first())
                .map_or(red, String::as_str);
            match first.get(red) {
                Some((other, path)) if *other != raw => {
                    return Err(refuse(
                        &run.path,
                        red,
                        format!("here and in {}", path.display()),
                    ));
                }
                Some(_) => {}
                None => {
                    first.insert(red, (raw, &run.path));
                }
            }
        }
    }
    Ok(())
}

/// Refuse two different test cases of different files that get the same test id (JUnit's
/// `classname::name` is not injective: classname `a` with name `b::c`, and classname `a::b`
/// with name `c`). The reader refuses that inside one file; across files the same rule holds,
/// or one test's failures would be merged into the other's trials. `runs` in the order given.
///
/// Files of different formats make their ids differently (JUnit's `classname::name`, mocha's
/// full title, Jest's `file::describe > test`, Inspect's `task::sample`), and only JUnit
/// records what an id was made of: the same id read from two formats may be two different
/// tests, so it is refused too, naming both files and formats (issue 29 review, B8).
pub fn check_same_ids<'r>(runs: impl IntoIterator<Item = &'r RunFile>) -> Result<(), IngestError> {
    // Per test id: the (classname, name) it came from and the file that first named it.
    let mut owner: HashMap<&str, (&(String, String), &PathBuf)> = HashMap::new();
    // Per test id: the format of the file that first named it, and that file.
    let mut format_of: HashMap<&str, (Format, &PathBuf)> = HashMap::new();
    for run in runs {
        for id in run
            .trials
            .iter()
            .map(|t| t.test.as_str())
            .chain(run.skipped_tests.iter().map(String::as_str))
        {
            match format_of.get(id) {
                Some((format, path)) if *format != run.format => {
                    return Err(IngestError::SameIdAcrossFiles {
                        path: run.path.clone(),
                        reason: format!(
                            "the test `{}` is named both here ({}) and in {} ({}); files of different \
                             formats make their test ids differently, so these may be two different tests, \
                             and gate will not merge their trials. Give the runs of one suite in one format",
                            untrusted_line(id),
                            run.format.as_str(),
                            path.display(),
                            format.as_str()
                        ),
                    });
                }
                Some(_) => {}
                None => {
                    format_of.insert(id, (run.format, &run.path));
                }
            }
        }
        for (id, parts) in &run.origins {
            match owner.get(id.as_str()) {
                Some((first, path)) if *first != parts => {
                    return Err(IngestError::SameIdAcrossFiles {
                        path: run.path.clone(),
                        reason: format!(
                            "test case `{}` (classname `{}`) and test case `{}` (classname `{}`) in {} \
                             would both be the test `{id}`; gate will not merge two different tests' \
                             trials. Rename one of them",
                            parts.1,
                            parts.0,
                            first.1,
                            first.0,
                            path.display()
                        ),
                    });
                }
                Some(_) => {}
                None => {
                    owner.insert(id, (parts, &run.path));
                }
            }
        }
    }
    Ok(())
}
