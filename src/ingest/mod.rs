//! JUnit XML written by real test runners → first-attempt outcomes per test and ordinal.
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
//! Reading is bounded: a file larger than [`MAX_FILE_BYTES`] is refused before it is parsed,
//! and [`junit`] keeps a fixed amount of text per failure.

pub mod audit;
pub mod deepeval;
pub mod gotest;
pub mod inspect;
pub mod json_nan;
pub mod json_split;
pub mod judge;
pub mod junit;
pub mod pairs;
pub mod promptfoo;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::ledger::sha256_hex;
use junit::{Case, Document, Status};

/// Largest JUnit file read (64 MiB): far above real suites (10,000 test cases take about
/// 2 MB), far below what would strain a CI runner's memory.
pub const MAX_FILE_BYTES: u64 = 64 << 20;

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
    /// No `--format` was given and the content matches none gate reads.
    #[error(
        "{}: not a format gate reads (JUnit XML, `go test -json`, promptfoo results, DeepEval test run, Inspect log); \
         give `--format` if it is one of them",
        path.display()
    )]
    Unrecognised {
        /// The file.
        path: PathBuf,
    },
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

/// The result formats `gate ingest` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JUnit XML (nextest, pytest, jest-junit, Playwright, gotestsum, promptfoo, DeepEval).
    Junit,
    /// `go test -json` events (gotestsum `--jsonfile` too).
    GoJson,
    /// promptfoo's `--output results.json` (or `.jsonl`).
    Promptfoo,
    /// DeepEval's `test_run_*.json`.
    Deepeval,
    /// An Inspect AI log: `.eval` (ZIP) or `.json`.
    Inspect,
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
    } else {
        None
    }
}

/// The keys of a JSON object document, its values skipped (bare `NaN` tolerated).
fn top_level_keys(text: &str) -> Option<Vec<String>> {
    struct Keys(Vec<String>);
    impl<'de> serde::Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> serde::de::Visitor<'de> for V {
                type Value = Keys;
                fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                    f.write_str("an object")
                }
                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut m: A,
                ) -> Result<Keys, A::Error> {
                    let mut out = Vec::new();
                    while let Some(k) = m.next_key::<String>()? {
                        m.next_value::<serde::de::IgnoredAny>()?;
                        out.push(k);
                    }
                    Ok(Keys(out))
                }
            }
            d.deserialize_map(V)
        }
    }
    let clean = json_nan::to_null(text);
    serde_json::from_str::<Keys>(&clean).ok().map(|k| k.0)
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
    pub fn outcome(&self) -> crate::ledger::Outcome {
        use crate::ledger::Outcome;
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
        side: Option<crate::pairs::Side>,
    ) -> crate::ledger::AttemptRow {
        crate::ledger::AttemptRow {
            task: task.to_string(),
            trial,
            attempt,
            started_at: started_at.to_string(),
            duration_s: self.duration_s,
            exit_code: None,
            signal: None,
            check_exit: None,
            fault: self.unavailable.then_some(crate::ledger::Fault::Transport),
            outcome: self.outcome(),
            graded: attempt == 1,
            result: None,
            reason: (!self.passed).then(|| self.message.clone()),
            stdout_tail: String::new(),
            stderr_tail: self.detail.clone(),
            log: None,
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
    /// The format read, and whether it was detected (not given with `--format`).
    pub format: Format,
    /// Whether the format was detected from the content.
    pub detected: bool,
    /// What the reader left out or ignored, one sentence each, for the terminal.
    pub notes: Vec<String>,
    /// What the tool's own summary reported, for `gate explain`.
    pub claims: Vec<Claim>,
}

/// Read and interpret one result file, in the format given or detected.
pub fn read_run(path: &Path, opts: &Options) -> Result<RunFile, IngestError> {
    if matches!(opts.format, None | Some(Format::Promptfoo))
        && let Some(run) = stream_promptfoo(path, opts)?
    {
        return Ok(run);
    }
    let bytes = read_bounded(path)?;
    let sha256 = sha256_hex(&bytes);
    let (format, detected) = match opts.format {
        Some(f) => (f, false),
        None => (
            detect(&bytes).ok_or_else(|| IngestError::Unrecognised {
                path: path.to_path_buf(),
            })?,
            true,
        ),
    };
    let invalid = |e: ParseError| IngestError::Invalid {
        path: path.to_path_buf(),
        line: e.line,
        column: e.column,
        reason: e.reason,
    };
    let refused = |reason: String| IngestError::Refused {
        path: path.to_path_buf(),
        reason,
    };
    let mut run = match format {
        Format::Junit => read_junit(path, &bytes, opts)?,
        Format::GoJson => {
            let text = utf8(path, &bytes)?;
            let go = gotest::read(text).map_err(invalid)?;
            let mut notes = Vec::new();
            if go.reruns > 0 {
                notes.push(format!(
                    "{} test run(s) after their package's first `go test` ended (gotestsum `--rerun-fails`) \
                     are reruns, not first attempts, and were left out",
                    go.reruns
                ));
            }
            RunFile {
                path: path.to_path_buf(),
                sha256: String::new(),
                writer: Writer::GoTest,
                trials: go.trials,
                skipped: go.skipped,
                format,
                detected,
                notes,
                claims: Vec::new(),
            }
        }
        Format::Promptfoo => {
            let text = utf8(path, &bytes)?;
            let pf = promptfoo::read(text, opts).map_err(|e| match e {
                promptfoo::Error::Parse(e) => invalid(e),
                promptfoo::Error::Refused(r) => refused(r),
            })?;
            RunFile {
                path: path.to_path_buf(),
                sha256: String::new(),
                writer: Writer::Promptfoo,
                trials: pf.trials,
                skipped: 0,
                format,
                detected,
                notes: pf.notes,
                claims: Vec::new(),
            }
        }
        Format::Deepeval => {
            let text = utf8(path, &bytes)?;
            let de = deepeval::read(text).map_err(invalid)?;
            RunFile {
                path: path.to_path_buf(),
                sha256: String::new(),
                writer: Writer::Deepeval,
                trials: de.trials,
                skipped: de.skipped,
                format,
                detected,
                notes: de.notes,
                claims: Vec::new(),
            }
        }
        Format::Inspect => {
            let log = inspect::read(&bytes, opts).map_err(|e| match e {
                inspect::Error::Parse(e) => invalid(e),
                inspect::Error::Refused(r) => refused(r),
            })?;
            RunFile {
                path: path.to_path_buf(),
                sha256: String::new(),
                writer: Writer::Inspect,
                trials: log.trials,
                skipped: log.cancelled,
                format,
                detected,
                notes: log.notes,
                claims: log.claims,
            }
        }
    };
    run.sha256 = sha256;
    run.format = format;
    run.detected = detected;
    Ok(run)
}

/// The bytes as UTF-8, or where they stop being.
fn utf8<'b>(path: &Path, bytes: &'b [u8]) -> Result<&'b str, IngestError> {
    std::str::from_utf8(bytes).map_err(|e| {
        let (line, column) = junit::line_col(
            &String::from_utf8_lossy(&bytes[..e.valid_up_to()]),
            e.valid_up_to(),
        );
        IngestError::Invalid {
            path: path.to_path_buf(),
            line,
            column,
            reason: "not UTF-8".into(),
        }
    })
}

/// Read one JUnit file.
fn read_junit(path: &Path, bytes: &[u8], opts: &Options) -> Result<RunFile, IngestError> {
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
    let doc = junit::parse(text).map_err(|e| IngestError::NotJunit {
        path: path.to_path_buf(),
        line: e.line,
        column: e.column,
        reason: e.reason,
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
    let (trials, skipped) =
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
        })?;
    Ok(RunFile {
        path: path.to_path_buf(),
        sha256: String::new(),
        writer,
        trials,
        skipped,
        format: Format::Junit,
        detected: false,
        notes: Vec::new(),
        claims: Vec::new(),
    })
}

/// promptfoo's `results.json`, streamed (hashed as it is read, within [`MAX_FILE_BYTES`]) when
/// its first bytes say it is one; `None` for any other file, which is then read whole. Its
/// rows are far larger than what judges them, so holding the file would cost more memory than
/// every other format's 10,000 records (scripts/bench-ingest.sh).
fn stream_promptfoo(path: &Path, opts: &Options) -> Result<Option<RunFile>, IngestError> {
    use sha2::Digest as _;
    use std::io::BufRead as _;
    /// A reader that hashes and counts what passes through it.
    struct Hashing<R> {
        inner: R,
        hash: sha2::Sha256,
        len: u64,
    }
    impl<R: Read> Read for Hashing<R> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.inner.read(buf)?;
            self.hash.update(&buf[..n]);
            self.len += n as u64;
            Ok(n)
        }
    }
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Stat before opening: opening a FIFO blocks until something writes to it.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(IngestError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    if file.metadata().map_err(io)?.len() > MAX_FILE_BYTES {
        return Err(IngestError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    // The hasher sits under the buffer: serde_json reads a byte at a time from what it is given.
    let mut reader = std::io::BufReader::with_capacity(
        64 << 10,
        Hashing {
            inner: file.take(MAX_FILE_BYTES + 1),
            hash: sha2::Sha256::new(),
            len: 0,
        },
    );
    if !promptfoo::starts_results_json(reader.fill_buf().map_err(io)?) {
        return Ok(None);
    }
    let pf = promptfoo::read_stream(&mut reader, opts);
    // What serde left unread (trailing whitespace) is part of the file and of its hash.
    std::io::copy(&mut reader, &mut std::io::sink()).map_err(io)?;
    let hashing = reader.into_inner();
    if hashing.len > MAX_FILE_BYTES {
        return Err(IngestError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    let pf = pf.map_err(|e| match e {
        promptfoo::Error::Parse(e) => IngestError::Invalid {
            path: path.to_path_buf(),
            line: e.line,
            column: e.column,
            reason: e.reason,
        },
        promptfoo::Error::Refused(reason) => IngestError::Refused {
            path: path.to_path_buf(),
            reason,
        },
    })?;
    let sha256 = hashing
        .hash
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok(Some(RunFile {
        path: path.to_path_buf(),
        sha256,
        writer: Writer::Promptfoo,
        trials: pf.trials,
        skipped: 0,
        format: Format::Promptfoo,
        detected: opts.format.is_none(),
        notes: pf.notes,
        claims: Vec::new(),
    }))
}

/// Read a regular file of at most [`MAX_FILE_BYTES`].
fn read_bounded(path: &Path) -> Result<Vec<u8>, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    // Stat before opening: opening a FIFO blocks until something writes to it.
    if !std::fs::metadata(path).map_err(io)?.is_file() {
        return Err(IngestError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    let file = std::fs::File::open(path).map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    if !meta.is_file() {
        return Err(IngestError::NotAFile {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(IngestError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    // The length can change between stat and read: read one byte past the cap to notice.
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(IngestError::TooLarge {
            path: path.to_path_buf(),
        });
    }
    Ok(bytes)
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
        Status::Skipped => return None,
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
}

/// Turn a document's records into trials, by the rules of its writer.
fn interpret(doc: &Document, writer: Writer, vouched: bool) -> Result<(Vec<Trial>, u64), Refusal> {
    let mut skipped = 0;
    match writer {
        Writer::Playwright if !vouched => {
            return Err(Refusal::RetriesInvisible(
                "written by Playwright's JUnit reporter, which does not record retries: a test that passed \
                 on a retry looks exactly like a first-attempt pass, so gate cannot tell first attempts apart. \
                 Check Playwright's own setting first: `retries: 0` in playwright.config (a generated config \
                 has `retries: process.env.CI ? 2 : 0`, so CI retries twice) and no `--retries` on the command \
                 line; repeat with `--repeat-each N`. Its JSON reporter records every retry, but gate reads no \
                 Playwright format that shows retries, so the JUnit file is read on your word: then pass \
                 `--assume-retries-off`"
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
                     check that no test file calls `jest.retryTimes` and pass `--assume-retries-off`",
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
                 test; run the suite once per file. gate reads no Vitest format that shows retries, so the JUnit \
                 file is read on your word: then pass `--assume-retries-off`"
                    .into(),
            ));
        }
        Writer::Mocha if !vouched => {
            return Err(Refusal::RetriesInvisible(
                "written by mocha-junit-reporter, which does not record retries: a test that passed on a \
                 retry looks exactly like a first-attempt pass. Check mocha's own setting first: `--retries 0` \
                 on the command line (it overrides `retries` in .mocharc) and no `this.retries(N)` in a test. \
                 mocha's JSON reporter records each test's `currentRetry`, but gate reads no mocha format that \
                 shows retries, so the JUnit file is read on your word: then pass `--assume-retries-off`"
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
    let mut trials: Vec<Trial> = Vec::new();
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
                owner.insert(id.clone(), (key.0.as_str(), base, line));
            }
        }
        if writer == Writer::Pytest {
            // pytest-rerunfailures: every record but the last is a failed attempt of one
            // trial (written without a failure element), the last is the final result.
            let (last, earlier) = cases.split_last().expect("a key has at least one record");
            let mut final_attempts = match attempts_of(last) {
                Some(a) => a,
                None if earlier.is_empty() => {
                    skipped += 1;
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
                    skipped += 1;
                    continue;
                };
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
    Ok((trials, skipped))
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
    let mut out = HashMap::new();
    for (k, p) in keys.iter().zip(parsed) {
        let Some((base, i, m)) = p else { continue };
        let g = &groups[&(k.0.clone(), base.clone(), m)];
        let mut distinct = g.clone();
        distinct.sort_unstable();
        distinct.dedup();
        let complete = m >= 2 && distinct.iter().copied().eq(1..=m);
        if complete {
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

/// Every test's trials across runs: ordinal k is the k-th trial in (file order, repeat
/// order). Tests are listed in order of first appearance.
#[derive(Debug, Clone)]
pub struct History {
    /// The test's id.
    pub test: String,
    /// Trials by ordinal (index 0 is ordinal 1).
    pub trials: Vec<Vec<Attempt>>,
}

/// Merge the runs, in the order given, into per-test histories.
pub fn histories(runs: Vec<RunFile>) -> Vec<History> {
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut out: Vec<History> = Vec::new();
    for run in runs {
        for t in run.trials {
            let i = *index.entry(t.test.clone()).or_insert_with(|| {
                out.push(History {
                    test: t.test.clone(),
                    trials: Vec::new(),
                });
                out.len() - 1
            });
            out[i].trials.push(t.attempts);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let Ok((trials, skipped)) = interpret(&doc, Writer::Pytest, false) else {
            panic!("interpreted");
        };
        assert_eq!(skipped, 1, "only the test that never ran is skipped");
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
