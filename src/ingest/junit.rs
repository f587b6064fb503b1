//! One JUnit XML file → its `<testcase>` records, in document order, with every child that
//! says how the test went: `<failure>`/`<error>`/`<skipped>`, the earlier failed attempts of
//! a test that passed on a retry (`<flakyFailure>`/`<flakyError>`), the later failed attempts
//! of a test that failed every attempt (`<rerunFailure>`/`<rerunError>`), and `<property>`
//! elements (jest-junit can record Jest's `invocations` there).
//!
//! The reader is a streaming pass of `quick-xml` over the file's bytes: no DOM, no recursion,
//! no entity beyond the five predefined ones and character references (a DTD is never
//! expanded), an element depth limit, and every kept text cut to a fixed size, so a hostile
//! file costs at most its own size in memory and never a panic. A file that is not
//! well-formed XML, or whose root is not `<testsuites>`/`<testsuite>`, is refused with the
//! line and column where reading stopped.

use quick_xml::Reader;
use quick_xml::escape::resolve_predefined_entity;
use quick_xml::events::{BytesStart, Event};

/// Deepest element nesting accepted; real JUnit files nest four or five levels.
pub const MAX_DEPTH: usize = 64;
/// Characters of a failure message or body kept (the head: the assertion comes first).
pub const MAX_TEXT: usize = 2_000;

/// How a record (or one of its attempts) ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// No `<failure>`, `<error>` or `<skipped>` child.
    Pass,
    /// A `<failure>` or `<error>` child: the message attribute and the start of its text.
    Fail {
        /// The `message` attribute, or the first line of the text.
        message: String,
        /// The head of the element's text (a stack trace, an assertion).
        detail: String,
    },
    /// A `<skipped>` child: the test did not run.
    Skipped,
}

/// An earlier or later failed attempt recorded inside a `<testcase>`.
#[derive(Debug, Clone, PartialEq)]
pub struct Retry {
    /// `time` attribute, seconds (0 when absent).
    pub time_s: f64,
    /// What failed.
    pub message: String,
    /// The head of its text.
    pub detail: String,
}

/// One `<testcase>` element.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// `classname` attribute (empty when absent).
    pub classname: String,
    /// `name` attribute.
    pub name: String,
    /// `time` attribute, seconds (0 when absent or not a number).
    pub time_s: f64,
    /// The record's own result (for a retried test: the last attempt's).
    pub status: Status,
    /// `<flakyFailure>`/`<flakyError>` children: failed attempts before the passing one.
    pub flaky: Vec<Retry>,
    /// `<rerunFailure>`/`<rerunError>` children: failed attempts after the first failure.
    pub reruns: Vec<Retry>,
    /// The `invocations` property, when the writer recorded one (jest-junit can).
    pub invocations: Option<u64>,
    /// 1-based line of the `<testcase>` tag.
    pub line: u64,
    /// Its `timestamp` attribute (nextest writes one per test case).
    pub stamp: Option<String>,
    /// Which `<testsuite>` holds it: 0 for none below the root, else the suite's 1-based
    /// position in the document (an index into [`Document::suites`] plus one).
    pub suite: usize,
    /// Its `<failure>` and `<error>` children: what a suite's `failures` + `errors` count
    /// (pytest writes both for a test that fails and then errors in teardown).
    pub failed_children: u64,
    /// The word of its `status`, `result`, `outcome`, `success`, `state`, `verdict` or
    /// `passed` attribute (any case of the name), lower case (CTest, the xunit schema, NUnit,
    /// Allure, googletest); with several, the one that says least for the test (a failure or
    /// an unknown word, then a skip, then a pass). Unless it is a word for a pass or a skip,
    /// a record with no `<failure>`/`<error>` inside is refused, so no spelling of a failure
    /// gate does not know reads as a pass (review 8, a04; review 9, a01).
    pub status_word: Option<String>,
}

/// What a `<testsuite>` or `<testsuites>` declares it holds (`tests`, `failures`, `errors`,
/// `skipped`), and what was read inside it: a file whose records fall short of its own totals
/// lost a record (a merger, a truncated writer, a filter) or spells one in a shape gate does
/// not read, so it is refused rather than read as passing (review 7, c14).
struct Totals {
    /// Depth of the stack below the element (where it closes).
    depth: usize,
    /// Byte offset of its tag.
    pos: u64,
    /// Its local name.
    name: String,
    /// `tests` minus `skipped`: some writers count skipped tests they write no record for.
    tests: Option<u64>,
    /// `failures` + `errors`.
    failed: u64,
    /// Test-case records read inside it.
    read_tests: u64,
    /// `<failure>`/`<error>` children read inside it.
    read_failed: u64,
}

impl Totals {
    fn declared(e: &BytesStart<'_>, depth: usize, pos: u64) -> Result<Totals, String> {
        // A count that is not a number is no total: the writers that matter write numbers.
        let n = |key: &str| -> Result<Option<u64>, String> {
            Ok(attr(e, key)?.and_then(|v| v.trim().parse::<u64>().ok()))
        };
        let tests = n("tests")?;
        let skipped = n("skipped")?.unwrap_or(0);
        Ok(Totals {
            depth,
            pos,
            name: local(e),
            tests: tests.map(|t| t.saturating_sub(skipped)),
            // `failed` is how some writers spell `failures` (review 8, a04).
            failed: n("failures")?
                .unwrap_or(0)
                .max(n("failed")?.unwrap_or(0))
                .saturating_add(n("errors")?.unwrap_or(0)),
            read_tests: 0,
            read_failed: 0,
        })
    }

    /// Why the element's records fall short of what it declares, or `None`.
    fn short(&self) -> Option<String> {
        let name = &self.name;
        if self.failed > self.read_failed {
            return Some(format!(
                "this `<{name}>` declares {} failure(s) and error(s) (`failures` + `errors`), but gate \
                 read {} `<failure>`/`<error>` record(s) in it: a failing test case was lost (a merger, a \
                 truncated file) or is written in a shape gate does not read, and reading the rest would \
                 turn a failure into a pass",
                self.failed, self.read_failed
            ));
        }
        if let Some(tests) = self.tests
            && tests > self.read_tests
        {
            return Some(format!(
                "this `<{name}>` declares {tests} test(s) that ran (`tests` less `skipped`), but gate read \
                 {} `<testcase>` record(s) in it: test cases were lost (a merger, a truncated file) or are \
                 written in a shape gate does not read",
                self.read_tests
            ));
        }
        None
    }
}

/// One `<testsuite>` below the root.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    /// 1-based line of its tag.
    pub line: u64,
    /// Its `name` attribute.
    pub name: String,
    /// Its `timestamp` attribute.
    pub stamp: Option<String>,
    /// Its `hostname` attribute (pytest, Playwright): part of the run's identity.
    pub hostname: Option<String>,
    /// Its `time` attribute in seconds, when it has one that is a number (gotestsum writes
    /// the package's elapsed time there: 0 for a package replayed from Go's test cache).
    pub time_s: Option<f64>,
}

/// What a file says about itself and its test cases.
#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    /// Local name of the root element: `testsuites` or `testsuite`.
    pub root: String,
    /// The root's `name` attribute (`nextest-run`, `pytest tests`, `jest tests`, …).
    pub root_name: Option<String>,
    /// Whether the root has an `id` attribute (Playwright's reporter writes one).
    pub root_has_id: bool,
    /// Whether a suite has a `go.version` property (gotestsum's JUnit writes one).
    pub go_version: bool,
    /// Every `<testcase>`, in document order.
    pub cases: Vec<Case>,
    /// The root's `uuid` (nextest writes one per run).
    pub run_id: Option<String>,
    /// The root's `timestamp`.
    pub stamp: Option<String>,
    /// Every `<testsuite>` below the root, in document order.
    pub suites: Vec<Suite>,
}

/// Why a file is not readable JUnit XML, and where (1-based line and column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotJunit {
    /// 1-based line.
    pub line: u64,
    /// 1-based column (in characters).
    pub column: u64,
    /// What is wrong.
    pub reason: String,
    /// Well-formed JUnit that gate refuses (a count or a per-file cap exceeded, a property
    /// given twice): its message must not say "not JUnit XML" (issue 29 review, B12).
    pub refused: bool,
}

/// Why [`open_element`] stops: the XML is not JUnit, or it is and gate refuses it.
enum Stop {
    Xml(String),
    Refused(String),
}

impl From<String> for Stop {
    fn from(reason: String) -> Stop {
        Stop::Xml(reason)
    }
}

/// Elements whose nesting the reader tracks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Case,
    /// `<failure>`/`<error>`: text goes to the case's failure detail.
    Failure,
    /// `<flaky*>`/`<rerun*>`: text goes to the retry's detail.
    Retry,
    /// Anything else (suites, properties, system-out, unknown elements).
    Other,
}

/// Parse a JUnit XML document.
pub fn parse(text: &str) -> Result<Document, NotJunit> {
    let mut reader = Reader::from_str(text);
    let at = |pos: u64, reason: String| {
        let (line, column) = line_col(text, pos as usize);
        NotJunit {
            line,
            column,
            reason,
            refused: false,
        }
    };
    let refused_at = |pos: u64, reason: String| NotJunit {
        refused: true,
        ..at(pos, reason)
    };
    let stop_at = |pos: u64, stop: Stop| match stop {
        Stop::Xml(reason) => at(pos, reason),
        Stop::Refused(reason) => refused_at(pos, reason),
    };
    let mut doc = Document {
        root: String::new(),
        root_name: None,
        root_has_id: false,
        go_version: false,
        cases: Vec::new(),
        run_id: None,
        stamp: None,
        suites: Vec::new(),
    };
    let mut stack: Vec<Open> = Vec::new();
    // The `<testsuites>`/`<testsuite>` elements open around the reader, with their totals.
    let mut totals: Vec<Totals> = Vec::new();
    let mut case: Option<Case> = None;
    // The retry being read, and whether it is flaky (before the pass) or a rerun.
    let mut retry: Option<(Retry, bool)> = None;
    let mut seen_root = false;
    // The self-closed `<testcase/>` (name, line) just read, while no other element has
    // opened or closed since: a `<failure>` right after it was meant for it (review 8, a25).
    let mut after_case: Option<(String, u64)> = None;
    // Attempts after the first, over the whole file (super::MAX_RETRIES_PER_FILE).
    let mut retries: u64 = 0;
    let mut lines = Lines {
        text: text.as_bytes(),
        pos: 0,
        line: 1,
    };

    loop {
        let start = reader.buffer_position();
        let event = reader
            .read_event()
            .map_err(|e| at(reader.error_position(), format!("not well-formed XML: {e}")))?;
        match event {
            Event::Start(e) if !seen_root => {
                read_root(&e, &mut doc).map_err(|r| at(start, r))?;
                seen_root = true;
                totals.push(Totals::declared(&e, 0, start).map_err(|r| at(start, r))?);
                stack.push(Open::Other);
            }
            Event::Empty(e) if !seen_root => {
                read_root(&e, &mut doc).map_err(|r| at(start, r))?;
                seen_root = true;
                if let Some(why) = Totals::declared(&e, 0, start)
                    .map_err(|r| at(start, r))?
                    .short()
                {
                    return Err(refused_at(start, why));
                }
            }
            Event::Start(e) => {
                outside_case(&e, &case, after_case.take()).map_err(|r| stop_at(start, r))?;
                note_suite_property(&e, &case, &mut doc).map_err(|r| at(start, r))?;
                note_suite(&e, &case, &mut doc, &mut lines, start).map_err(|r| at(start, r))?;
                if stack.len() >= MAX_DEPTH {
                    return Err(at(
                        start,
                        format!("elements nested deeper than {MAX_DEPTH}"),
                    ));
                }
                let line = lines.line_at(start as usize);
                let open =
                    open_element(&e, true, &stack, &mut case, &mut retry, line, &mut retries)
                        .map_err(|r| stop_at(start, r))?;
                if open == Open::Case {
                    count_case(&doc).map_err(|r| refused_at(start, r))?;
                }
                if case.is_none() && is_suite(&e) {
                    totals
                        .push(Totals::declared(&e, stack.len(), start).map_err(|r| at(start, r))?);
                }
                stack.push(open);
            }
            Event::Empty(e) => {
                outside_case(&e, &case, after_case.take()).map_err(|r| stop_at(start, r))?;
                note_suite_property(&e, &case, &mut doc).map_err(|r| at(start, r))?;
                note_suite(&e, &case, &mut doc, &mut lines, start).map_err(|r| at(start, r))?;
                let line = lines.line_at(start as usize);
                let open =
                    open_element(&e, false, &stack, &mut case, &mut retry, line, &mut retries)
                        .map_err(|r| stop_at(start, r))?;
                if open == Open::Case {
                    count_case(&doc).map_err(|r| refused_at(start, r))?;
                }
                if case.is_none()
                    && is_suite(&e)
                    && let Some(why) = Totals::declared(&e, stack.len(), start)
                        .map_err(|r| at(start, r))?
                        .short()
                {
                    return Err(refused_at(start, why));
                }
                // `<testcase .../>` is a complete record: there is no End event for it.
                if open == Open::Case
                    && let Some(c) = case.take()
                {
                    let closed = (c.name.clone(), c.line);
                    finish_case(c, &mut doc, &mut totals).map_err(|r| refused_at(start, r))?;
                    after_case = Some(closed);
                }
            }
            Event::End(_) => {
                after_case = None;
                match stack.pop() {
                    Some(Open::Case) => {
                        if let Some(c) = case.take() {
                            let line = c.line;
                            finish_case(c, &mut doc, &mut totals).map_err(|r| NotJunit {
                                line,
                                column: 1,
                                reason: r,
                                refused: true,
                            })?;
                        }
                    }
                    Some(Open::Retry) => close_retry(&mut case, &mut retry),
                    _ => {}
                }
                if totals.last().is_some_and(|t| t.depth == stack.len())
                    && let Some(t) = totals.pop()
                    && let Some(why) = t.short()
                {
                    return Err(refused_at(t.pos, why));
                }
            }
            Event::Text(t) => {
                let s = t
                    .xml10_content()
                    .map_err(|e| at(start, format!("not UTF-8 text: {e}")))?;
                push_text(&stack, &mut case, &mut retry, &s);
            }
            Event::CData(t) => {
                let s = t
                    .decode()
                    .map_err(|e| at(start, format!("not UTF-8 text: {e}")))?;
                push_text(&stack, &mut case, &mut retry, &s);
            }
            Event::GeneralRef(r) => {
                let name = r
                    .decode()
                    .map_err(|e| at(start, format!("not UTF-8 text: {e}")))?;
                let ch = r
                    .resolve_char_ref()
                    .map_err(|e| at(start, format!("bad character reference: {e}")))?;
                let resolved = match ch {
                    Some(c) => c.to_string(),
                    None => resolve_predefined_entity(&name)
                        .ok_or_else(|| {
                            at(
                                start,
                                format!("unknown entity `&{name};` (gate expands only the five XML entities)"),
                            )
                        })?
                        .to_string(),
                };
                push_text(&stack, &mut case, &mut retry, &resolved);
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) | Event::DocType(_) => {}
        }
    }
    if !stack.is_empty() {
        return Err(at(
            text.len() as u64,
            format!(
                "the file ends inside {} open element{} (truncated?)",
                stack.len(),
                if stack.len() == 1 { "" } else { "s" }
            ),
        ));
    }
    if !seen_root {
        return Err(at(
            text.len() as u64,
            "no root element (an empty file?); expected `<testsuites>` or `<testsuite>`".into(),
        ));
    }
    Ok(doc)
}

/// Whether an element is a `<testsuite>` or `<testsuites>` (whose totals are checked).
fn is_suite(e: &BytesStart<'_>) -> bool {
    matches!(local(e).as_str(), "testsuite" | "testsuites")
}

/// A word of a `status`-like attribute that says the test passed.
fn is_pass_word(w: &str) -> bool {
    matches!(
        w,
        "pass"
            | "passed"
            | "success"
            | "successful"
            | "succeeded"
            | "ok"
            | "true"
            | "run"
            | "executed"
            | "completed"
    )
}

/// A word of a `status`-like attribute that says the test did not run. googletest writes a
/// `DISABLED_` test as `status="notrun" result="suppressed"` (`status="notrun"` alone before
/// 1.10) with no child element (review 9, a01/a16).
fn is_skip_word(w: &str) -> bool {
    matches!(
        w,
        "skip"
            | "skipped"
            | "notrun"
            | "not run"
            | "ignored"
            | "disabled"
            | "pending"
            | "suppressed"
    )
}

/// The status-like attribute names of a `<testcase>` (compared lower case): a failure said
/// by any of them is not read as a pass (review 9, a01: `state=`, `verdict=`, `Status=`).
const STATUS_KEYS: [&str; 7] = [
    "status", "result", "outcome", "success", "state", "verdict", "passed",
];

/// The status word of a `<testcase>` tag: every [`STATUS_KEYS`] attribute (any case of the
/// name; `failed="true"` read as a failure), the one that says least for the test first.
fn status_word(e: &BytesStart<'_>) -> Result<Option<String>, String> {
    // 0 pass, 1 skip, 2 a failure or a word gate does not know.
    let rank = |w: &str| {
        if is_pass_word(w) {
            0
        } else if is_skip_word(w) {
            1
        } else {
            2
        }
    };
    let mut word: Option<String> = None;
    for a in e.attributes() {
        let a = a.map_err(|err| format!("malformed attribute: {err}"))?;
        let key = String::from_utf8_lossy(a.key.local_name().as_ref()).to_ascii_lowercase();
        let v = a
            .normalized_value(quick_xml::XmlVersion::Implicit1_0)
            .map_err(|err| format!("attribute `{key}`: {err}"))?;
        let v = v.trim().trim_end_matches('.').to_ascii_lowercase();
        let v = match key.as_str() {
            k if STATUS_KEYS.contains(&k) => v,
            // `failed="false"` is the only spelling of it that is not a failure.
            "failed" if matches!(v.as_str(), "false" | "0" | "no") => "pass".to_string(),
            "failed" => format!("failed={v}"),
            _ => continue,
        };
        if word.as_deref().is_none_or(|w| rank(&v) > rank(w)) {
            word = Some(v);
        }
    }
    Ok(word)
}

/// Keep a finished `<testcase>` record, counted in the totals of every suite around it;
/// refuse one whose `status` attribute says it failed with no failure recorded. A skip word
/// with no failure recorded is a skipped record, with or without a `<skipped>` child.
fn finish_case(mut c: Case, doc: &mut Document, totals: &mut [Totals]) -> Result<(), String> {
    if let Some(word) = &c.status_word
        && c.failed_children == 0
    {
        let pass = is_pass_word(word);
        let skip = is_skip_word(word);
        if skip {
            // Not run: not a pass and not a failure (review 9, a01/a16).
            c.status = Status::Skipped;
        }
        if !(pass || skip) {
            return Err(format!(
                "test case `{}` has a `status` or `result` attribute that says it failed, or a word \
                 gate does not read as a pass (`{}`), but no `<failure>` or `<error>` child: gate \
                 will not read it as a pass",
                crate::untrusted::one_line(&c.name),
                crate::untrusted::one_line(word)
            ));
        }
    }
    for t in totals.iter_mut() {
        t.read_tests += 1;
        t.read_failed += c.failed_children;
    }
    c.suite = doc.suites.len();
    doc.cases.push(c);
    Ok(())
}

/// Refuse one more test case when the file already holds [`super::MAX_CASES_PER_FILE`]:
/// checked as each `<testcase>` opens, before it is kept, so a file of millions of tiny
/// records costs no more than the cap's worth of memory.
fn count_case(doc: &Document) -> Result<(), String> {
    if doc.cases.len() as u64 >= super::MAX_CASES_PER_FILE {
        Err(super::capped::too_many(
            "`<testcase>`",
            super::MAX_CASES_PER_FILE,
        ))
    } else {
        Ok(())
    }
}

/// Check the root element and keep what it says about the writer.
fn read_root(e: &BytesStart<'_>, doc: &mut Document) -> Result<(), String> {
    let name = local(e);
    if name != "testsuites" && name != "testsuite" {
        return Err(format!(
            "the root element is `<{name}>`, not `<testsuites>` or `<testsuite>`"
        ));
    }
    doc.root = name;
    doc.root_name = attr(e, "name")?;
    doc.root_has_id = attr(e, "id")?.is_some();
    doc.run_id = attr(e, "uuid")?;
    doc.stamp = attr(e, "timestamp")?;
    Ok(())
}

/// Keep a `<testsuite>` below the root: its name and timestamp, so that one run's suite
/// written twice into a file can be told from two runs.
fn note_suite(
    e: &BytesStart<'_>,
    case: &Option<Case>,
    doc: &mut Document,
    lines: &mut Lines<'_>,
    start: u64,
) -> Result<(), String> {
    if case.is_none() && local(e) == "testsuite" {
        doc.suites.push(Suite {
            line: lines.line_at(start as usize),
            name: attr(e, "name")?.unwrap_or_default(),
            stamp: attr(e, "timestamp")?,
            hostname: attr(e, "hostname")?,
            time_s: attr(e, "time")?
                .and_then(|v| v.trim().parse::<f64>().ok())
                .filter(|t| t.is_finite() && *t >= 0.0),
        });
    }
    Ok(())
}

/// Refuse an element outside any `<testcase>` that records a test's result where gate would
/// not read it (review 8, a25, a04): a `<failure>` or `<error>` (a suite's setup or teardown
/// failure, a test file that failed to load, or a failure written beside a self-closed
/// `<testcase/>`, which `after` names), and an element JUnit does not define that carries a
/// `name` and a `status`, `result`, `outcome` or `success` (xUnit's `<test name=… result=…>`).
/// Left alone, the first would leave every test case around it passing and the second would
/// drop a test's record without a word.
fn outside_case(
    e: &BytesStart<'_>,
    case: &Option<Case>,
    after: Option<(String, u64)>,
) -> Result<(), Stop> {
    if case.is_some() {
        return Ok(());
    }
    let name = local(e);
    if matches!(name.as_str(), "failure" | "error") {
        let after = after
            .map(|(test, line)| {
                format!(
                    " (right after the self-closed `<testcase name=\"{}\"/>` of line {line}, which \
                     records a pass)",
                    crate::untrusted::one_line(&test)
                )
            })
            .unwrap_or_default();
        return Err(Stop::Refused(format!(
            "`<{name}>` outside any `<testcase>`{after}: a failure of the suite itself (its setup or \
             teardown, a fixture error, a test file that failed to load) is no test case's result, \
             and a test's own failure goes inside its `<testcase>`; gate will neither guess which \
             test cases it failed nor read them as passing around it. Fix what failed (or the \
             writer) and run the suite again"
        )));
    }
    if matches!(
        name.as_str(),
        "testsuites" | "testsuite" | "testcase" | "properties" | "property"
    ) || attr(e, "name")?.is_none()
    {
        return Ok(());
    }
    for key in ["status", "result", "outcome", "success"] {
        if attr(e, key)?.is_some() {
            return Err(Stop::Refused(format!(
                "unknown element `<{}>` with a `name` and a `{key}`: it reads as a test's record, but \
                 JUnit writes `<testcase>`; gate will not leave a test's record out",
                crate::untrusted::one_line(&name)
            )));
        }
    }
    Ok(())
}

/// Keep what a suite-level `<property>` says about the writer (gotestsum's `go.version`).
fn note_suite_property(
    e: &BytesStart<'_>,
    case: &Option<Case>,
    doc: &mut Document,
) -> Result<(), String> {
    if case.is_none() && local(e) == "property" && attr(e, "name")?.as_deref() == Some("go.version")
    {
        doc.go_version = true;
    }
    Ok(())
}

/// Handle a start (`has_body`) or empty element; returns how to track it when it has a body.
fn open_element(
    e: &BytesStart<'_>,
    has_body: bool,
    stack: &[Open],
    case: &mut Option<Case>,
    retry: &mut Option<(Retry, bool)>,
    line: u64,
    retries: &mut u64,
) -> Result<Open, Stop> {
    let name = local(e);
    let parent = stack.last().copied();
    // `<testCase>`, `<TestCase>`, `<test_case>`: not JUnit's name, but what a record of a test
    // looks like; skipped as an unknown element, a failing test would vanish (review 7, c14).
    if case.is_none() && name != "testcase" && case_like(&name) {
        return Err(Stop::Refused(format!(
            "unknown element `<{}>`: its name reads as a test case, but JUnit writes `<testcase>`; gate \
             will not leave a test's record out",
            crate::untrusted::one_line(&name)
        )));
    }
    if name == "testcase" {
        if case.is_some() {
            return Err(Stop::Xml("`<testcase>` inside another `<testcase>`".into()));
        }
        let name_attr = attr(e, "name")?
            .ok_or_else(|| "`<testcase>` without a `name` attribute".to_string())?;
        let c = Case {
            classname: attr(e, "classname")?.unwrap_or_default(),
            name: name_attr,
            time_s: seconds(attr(e, "time")?),
            status: Status::Pass,
            flaky: Vec::new(),
            reruns: Vec::new(),
            invocations: None,
            line,
            stamp: attr(e, "timestamp")?,
            suite: 0,
            failed_children: 0,
            status_word: status_word(e)?,
        };
        *case = Some(c);
        // With no body, the caller finishes the record at once.
        return Ok(Open::Case);
    }
    let Some(c) = case.as_mut() else {
        return Ok(Open::Other);
    };
    // Direct children of the test case count (and `<property>` inside `<properties>`); a
    // `<failure>` or `<error>` at any depth inside it (one level down, inside a wrapper
    // child: review 9, a24) unless inside a retry's record.
    match (parent, name.as_str()) {
        (_, "failure" | "error") if !stack.contains(&Open::Retry) => {
            c.failed_children += 1;
            let message = attr(e, "message")?.unwrap_or_default();
            c.status = Status::Fail {
                message: cut(&message),
                detail: String::new(),
            };
            Ok(if has_body { Open::Failure } else { Open::Other })
        }
        (Some(Open::Case), "skipped") => {
            if c.status == Status::Pass {
                c.status = Status::Skipped;
            }
            Ok(Open::Other)
        }
        (Some(Open::Case), "flakyFailure" | "flakyError" | "rerunFailure" | "rerunError") => {
            // Each is one more attempt of the trial: as many as a count may say, no more.
            super::Count::new(
                (c.flaky.len() + c.reruns.len() + 1) as u64,
                &format!("the number of `<{name}>` retries of test case `{}`", c.name),
            )
            .map_err(Stop::Refused)?;
            super::spend_retries(retries, 1).map_err(Stop::Refused)?;
            let r = Retry {
                time_s: seconds(attr(e, "time")?),
                message: cut(&attr(e, "message")?.unwrap_or_default()),
                detail: String::new(),
            };
            let flaky = name.starts_with("flaky");
            if has_body {
                *retry = Some((r, flaky));
                Ok(Open::Retry)
            } else {
                if flaky {
                    c.flaky.push(r);
                } else {
                    c.reruns.push(r);
                }
                Ok(Open::Other)
            }
        }
        (_, "property") if attr(e, "name")?.as_deref() == Some("invocations") => {
            // Written twice, one value would silently win (the last, before): a record that
            // says two things about how often it ran is refused (issue 29 review, B10).
            if c.invocations.is_some() {
                return Err(Stop::Refused(format!(
                    "test case `{}` has the property `invocations` twice; gate will not pick one of \
                     two counts of how often it ran",
                    c.name
                )));
            }
            let value = attr(e, "value")?.unwrap_or_default();
            let n = super::Count::parse(&value, "property `invocations`").map_err(Stop::Refused)?;
            super::spend_retries(retries, n.0.saturating_sub(1)).map_err(Stop::Refused)?;
            c.invocations = Some(n.0);
            Ok(Open::Other)
        }
        // A child this reader does not know is ignored (writers add their own), unless its
        // name says failure or error (`<Failure>`, `<failed>`, `<errors>`): read as a pass,
        // such a record would hide a failure in a shape no writer gate knows would produce.
        (Some(Open::Case), other) if failure_like(other) => Err(Stop::Refused(format!(
            "unknown element `<{}>` inside a `<testcase>`: its name says failure or error, but JUnit \
             writes `<failure>` or `<error>`; gate will not read it as a pass",
            crate::untrusted::one_line(other)
        ))),
        _ => Ok(Open::Other),
    }
}

/// Whether an element name other than `testcase` reads as one (case and `-`/`_` aside).
fn case_like(name: &str) -> bool {
    let folded: String = name
        .chars()
        .filter(|c| !matches!(c, '-' | '_'))
        .flat_map(char::to_lowercase)
        .collect();
    folded == "testcase"
}

/// Whether an element name that is none of JUnit's reads like a failure shape.
fn failure_like(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("fail") || n.contains("error")
}

fn close_retry(case: &mut Option<Case>, retry: &mut Option<(Retry, bool)>) {
    if let (Some(c), Some((r, flaky))) = (case.as_mut(), retry.take()) {
        if flaky {
            c.flaky.push(r);
        } else {
            c.reruns.push(r);
        }
    }
}

/// Append text to whatever the innermost tracked element collects, up to [`MAX_TEXT`].
fn push_text(stack: &[Open], case: &mut Option<Case>, retry: &mut Option<(Retry, bool)>, s: &str) {
    let target = match stack.last() {
        Some(Open::Failure) => match case.as_mut().map(|c| &mut c.status) {
            Some(Status::Fail { detail, .. }) => detail,
            _ => return,
        },
        Some(Open::Retry) => match retry.as_mut() {
            Some((r, _)) => &mut r.detail,
            None => return,
        },
        _ => return,
    };
    let room = MAX_TEXT.saturating_sub(target.chars().count());
    target.extend(s.chars().take(room));
}

/// An element's local name (without a namespace prefix), lossily decoded.
fn local(e: &BytesStart<'_>) -> String {
    String::from_utf8_lossy(e.local_name().as_ref()).into_owned()
}

/// An attribute's value, with entities resolved; `Err` for a malformed attribute.
fn attr(e: &BytesStart<'_>, key: &str) -> Result<Option<String>, String> {
    for a in e.attributes() {
        let a = a.map_err(|err| format!("malformed attribute: {err}"))?;
        if a.key.local_name().as_ref() == key.as_bytes() {
            let v = a
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| format!("attribute `{key}`: {err}"))?;
            return Ok(Some(v.into_owned()));
        }
    }
    Ok(None)
}

/// A `time` attribute in seconds; absent, negative or not a number counts as 0.
fn seconds(v: Option<String>) -> f64 {
    v.and_then(|s| s.trim().parse::<f64>().ok())
        .filter(|t| t.is_finite() && *t >= 0.0)
        .unwrap_or(0.0)
}

/// At most [`MAX_TEXT`] characters.
fn cut(s: &str) -> String {
    s.chars().take(MAX_TEXT).collect()
}

/// Line numbers of increasing byte offsets, counted once: scanning from the start for every
/// `<testcase>` would make a large file quadratic.
struct Lines<'a> {
    text: &'a [u8],
    pos: usize,
    line: u64,
}

impl Lines<'_> {
    /// The 1-based line of byte offset `pos` (offsets must not decrease between calls).
    fn line_at(&mut self, pos: usize) -> u64 {
        let pos = pos.min(self.text.len());
        if pos > self.pos {
            self.line += self.text[self.pos..pos]
                .iter()
                .filter(|&&b| b == b'\n')
                .count() as u64;
            self.pos = pos;
        }
        self.line
    }
}

/// 1-based line and column (in characters) of byte offset `pos`.
pub fn line_col(text: &str, pos: usize) -> (u64, u64) {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &text[..pos];
    let line = before.bytes().filter(|&b| b == b'\n').count() as u64 + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before[line_start..].chars().count() as u64 + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn flaky_and_rerun_children_are_kept_in_document_order() {
        let doc = parse(
            r#"<testsuites name="nextest-run"><testsuite name="s">
<testcase name="t" classname="c" time="0.5">
  <flakyFailure time="0.1" message="first">one<system-out>ignored</system-out></flakyFailure>
  <flakyFailure time="0.2" message="second"/>
</testcase>
<testcase name="u" classname="c"><failure message="m">body &amp; more</failure><rerunFailure message="r"/></testcase>
<testcase name="v"><skipped/></testcase>
</testsuite></testsuites>"#,
        )
        .unwrap();
        assert_eq!(doc.root_name.as_deref(), Some("nextest-run"));
        let [t, u, v] = &doc.cases[..] else {
            panic!("three cases: {:?}", doc.cases)
        };
        assert_eq!(t.status, Status::Pass);
        let flaky: Vec<(&str, &str)> = t
            .flaky
            .iter()
            .map(|r| (r.message.as_str(), r.detail.as_str()))
            .collect();
        assert_eq!(flaky, [("first", "one"), ("second", "")]);
        assert_eq!(
            u.status,
            Status::Fail {
                message: "m".into(),
                detail: "body & more".into()
            }
        );
        assert_eq!(u.reruns.len(), 1);
        assert_eq!(v.status, Status::Skipped);
        assert_eq!(u.line, 6);
    }

    #[test]
    fn a_testcase_inside_a_testcase_is_not_junit() {
        let e = parse(
            "<testsuite><testcase name=\"a\">\n<testcase name=\"b\"/></testcase></testsuite>",
        )
        .unwrap_err();
        assert_eq!((e.line, e.column), (2, 1));
        assert!(e.reason.contains("inside another"), "{}", e.reason);
    }

    #[test]
    fn failure_text_is_cut_to_the_head() {
        let long = "x".repeat(MAX_TEXT * 3);
        let doc = parse(&format!(
            "<testsuite><testcase name=\"a\"><failure>{long}</failure></testcase></testsuite>"
        ))
        .unwrap();
        match &doc.cases[0].status {
            Status::Fail { detail, .. } => assert_eq!(detail.chars().count(), MAX_TEXT),
            other => panic!("{other:?}"),
        }
    }

    fn junit_piece() -> impl Strategy<Value = &'static str> {
        prop_oneof![
            Just("<testsuites name=\"pytest tests\">"),
            Just("<testsuite>"),
            Just("<testcase name=\"a\" time=\"1e400\">"),
            Just("<testcase name=\"a\"/>"),
            Just("</testcase>"),
            Just("<failure message=\"&lt;\">"),
            Just("</failure>"),
            Just("<flakyFailure time=\"-1\">"),
            Just("</flakyFailure>"),
            Just("<rerunError/>"),
            Just("<skipped/>"),
            Just("<property name=\"invocations\" value=\"99999999999999999999999\"/>"),
            Just("&amp;"),
            Just("&#0;"),
            Just("&#x110000;"),
            Just("&lol;"),
            Just("<![CDATA[ ]]>"),
            Just("<!DOCTYPE x [<!ENTITY lol \"lol\">]>"),
            Just("</testsuite>"),
            Just("</testsuites>"),
            Just("text"),
        ]
    }

    proptest! {
        /// Hostile input is an error or a document, never a panic.
        #[test]
        fn parse_never_panics_on_arbitrary_text(s in "\\PC{0,300}") {
            let _ = parse(&s);
        }

        #[test]
        fn parse_never_panics_on_shuffled_junit(parts in prop::collection::vec(junit_piece(), 0..40)) {
            let text = parts.concat();
            if let Ok(doc) = parse(&text) {
                for c in &doc.cases {
                    prop_assert!(c.time_s.is_finite() && c.time_s >= 0.0);
                }
            }
        }
    }
}
