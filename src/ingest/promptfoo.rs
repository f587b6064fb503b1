//! promptfoo's results file (`promptfoo eval --repeat N --no-cache -o results.json`, or
//! `.jsonl`) → first-attempt trials per test.
//!
//! Read from promptfoo 0.121's real output (scripts/gen-eval-fixtures.sh):
//!
//! - `.results.results[]` (one JSON line each in `.jsonl`) holds one row per test × repeat ×
//!   prompt × provider, with `testIdx`, `testCase.description`/`vars`, `success` and
//!   `failureReason` (0 none, 1 assertion, 2 error; the `error` text is set on plain
//!   assertion failures too, so only the reason code tells an error).
//! - **There is no repeat index**: `--repeat N` writes the N repeats of a test as consecutive
//!   `testIdx`. So a trial is one row, its test is the row's identity (the description, or
//!   the vars when there is none, plus the prompt and the provider when the file has several),
//!   and its ordinal is its place in `testIdx` order.
//! - **Its cache replays earlier answers**: a second run without `--no-cache` answers every
//!   row from the cache (`response.cached: true`) and never calls the agent. Such rows are not
//!   trials of this build, so a file with any is refused.
//! - An error row (`failureReason` 2, or an HTTP status ≥ 500 in `response.metadata.http`) is
//!   a failure, or a declared fault with `--errors unavailable`. Provider-level retries leave
//!   no trace in the file.
//! - **One eval is one run**, whichever file it is written to: promptfoo gives the eval an
//!   `evalId`, its `results` a `timestamp`, and every row an `id` (a UUID) that the
//!   `results.json` and the `.jsonl` of one eval share. They are the file's run identity
//!   ([`super::Identity`]), so `-o results.json -o results.jsonl` matched by one glob, or a
//!   re-indented copy, is one run given twice and refused (review 47, c01).
//! - **A description names one test**: two tests with one description but different `vars`
//!   would read as repeats of one test, a failing one hidden among the other's passes; such a
//!   file is refused (review 47, c07). Repeats of one test carry the same vars.
//! - **A row id names one row**: promptfoo gives every row its own `id`, so one id twice in a
//!   file is a row copied over another (a failing row replaced by a passing one, which a
//!   `.jsonl` has no totals to show); such a file is refused, naming the id.

use std::collections::HashMap;

use serde::Deserialize;

use super::{Attempt, Options, ParseError, Trial, cut_text, json_nan, json_split};

/// Why a results file cannot be read.
pub enum Error {
    /// Not promptfoo's results.
    Parse(ParseError),
    /// Readable, but not first attempts (cache replays).
    Refused(String),
}

/// `results.json`: `{"evalId", "results": {"results": [rows]}}`.
#[derive(Deserialize)]
struct File {
    /// The eval's id: the same in every file the eval is written to (the `.jsonl` has none).
    #[serde(default, rename = "evalId")]
    eval_id: Option<String>,
    results: Table,
}

#[derive(Deserialize)]
struct Table {
    results: super::capped::Capped<Row, super::capped::Tests>,
    /// promptfoo's own totals of the rows it wrote: rows short of them were cut from the
    /// file's tail, which leaves no `testIdx` gap (review 8, a06).
    #[serde(default)]
    stats: Option<Stats>,
    /// When the eval ran: a stamp of the run ([`super::Identity::stamps`]).
    #[serde(default)]
    timestamp: Option<String>,
}

/// `results.stats`: promptfoo's `toEvaluateSummary` writes `successes` and `failures` in every
/// version, and `errors` since it counts errors apart (an older file has none: 0).
#[derive(Deserialize)]
struct Stats {
    #[serde(default)]
    successes: Option<u64>,
    #[serde(default)]
    failures: Option<u64>,
    #[serde(default)]
    errors: u64,
}

/// One row: one test × repeat × prompt × provider.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Row {
    /// The row's own id (a UUID), the same in the eval's `results.json` and `.jsonl`.
    #[serde(default)]
    id: Option<String>,
    test_idx: u64,
    #[serde(default)]
    prompt_idx: u64,
    #[serde(default)]
    prompt: Option<Prompt>,
    #[serde(default)]
    provider: Option<Provider>,
    #[serde(default)]
    test_case: Option<TestCase>,
    #[serde(default)]
    vars: Option<serde_json::Value>,
    success: bool,
    #[serde(default)]
    failure_reason: Option<u64>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    response: Option<Response>,
    #[serde(default)]
    latency_ms: Option<f64>,
    #[serde(default)]
    grading_result: Option<GradingResult>,
}

/// A row's `gradingResult`: whether its assertions passed.
#[derive(Deserialize)]
struct GradingResult {
    #[serde(default)]
    pass: Option<bool>,
}

#[derive(Deserialize)]
struct Prompt {
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    raw: Option<String>,
}

#[derive(Deserialize)]
struct Provider {
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    label: Option<String>,
}

#[derive(Deserialize)]
struct TestCase {
    #[serde(default)]
    description: Option<String>,
    #[serde(default)]
    vars: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Response {
    #[serde(default)]
    cached: Option<bool>,
    #[serde(default)]
    metadata: Option<Metadata>,
}

#[derive(Deserialize)]
struct Metadata {
    #[serde(default)]
    http: Option<Http>,
}

#[derive(Deserialize)]
struct Http {
    #[serde(default)]
    status: Option<u64>,
}

/// What a results file holds.
pub struct Results {
    /// First-attempt trials, each test's in `testIdx` order.
    pub trials: Vec<Trial>,
    /// What the reader said about the file, for the terminal.
    pub notes: Vec<String>,
    /// The test ids made of a row's `vars` (see [`super::JsonIds`]).
    pub json_ids: super::JsonIds,
    /// The eval's identity: its `evalId` and its rows' ids as run ids, its `timestamp` as the
    /// stamp, so that one eval given twice (as `.json` and `.jsonl`, or re-saved) is refused
    /// by [`super::check_distinct`] (review 47, c01).
    pub identity: super::Identity,
}

/// Whether a line looks like one row of promptfoo's `.jsonl` output.
pub fn looks_like_jsonl(line: &str) -> bool {
    line.contains("\"testIdx\"") && line.contains("\"success\"")
}

/// Whether a file's first bytes open promptfoo's `results.json`: an object whose first key is
/// `evalId` (promptfoo writes it first), so the file can be streamed without being held.
pub fn starts_results_json(prefix: &[u8]) -> bool {
    let s = prefix.strip_prefix("\u{feff}".as_bytes()).unwrap_or(prefix);
    let s = s.trim_ascii_start();
    s.strip_prefix(b"{")
        .is_some_and(|rest| rest.trim_ascii_start().starts_with(b"\"evalId\""))
}

/// Read a `results.json` from a stream, row by row, without holding the file: a real row is
/// over a kilobyte (prompt, output, grading), and only what judges it is kept. Each row of
/// `.results.results` is parsed from a slice of its own ([`json_split`]), the rest of the file
/// strictly as a skeleton. promptfoo is JavaScript, whose `JSON.stringify` writes no bare
/// `NaN`, so no rewrite is needed.
pub fn read_stream(reader: impl std::io::BufRead, opts: &Options) -> Result<Results, Error> {
    let not_results = |at: json_split::Position, e: &dyn std::fmt::Display| {
        Error::Parse(ParseError {
            line: at.line,
            column: at.column,
            reason: format!(
                "not promptfoo's results (`.results.results[]`): {e} at line {} column {}",
                at.line, at.column
            ),
        })
    };
    let mut rows = Vec::new();
    let skeleton = json_split::split(reader, &[b"results", b"results"], |bytes, at| {
        let row: Row = serde_json::from_slice(bytes).map_err(|e| {
            not_results(
                at.within(e.line() as u64, e.column() as u64),
                &Bare(e.to_string()),
            )
        })?;
        past_the_cap(rows.len(), at.line)?;
        rows.push((at.line, row));
        Ok(())
    })
    .map_err(|e| match e {
        json_split::Error::Io(e) => Error::Parse(ParseError {
            line: 1,
            column: 1,
            reason: format!("cannot read promptfoo's results: {e}"),
        }),
        json_split::Error::Syntax(what, at) => not_results(at, &what),
        json_split::Error::Element(e) => e,
    })?;
    // The skeleton holds `.results.results` as `[]`, or the rows themselves when the file
    // spells the keys in a way the scan does not match (escapes): then they are read here,
    // counted after the streamed rows and never after the previous file's records.
    let file: File =
        super::capped::from_slice_after(&skeleton.bytes, rows.len() as u64).map_err(|e| {
            let at = skeleton.original(e.line() as u64, e.column() as u64);
            let reason = super::capped::reason(&e, |e| {
                format!(
                    "not promptfoo's results (`.results.results[]`): {} at line {} column {}",
                    Bare(e.to_string()),
                    at.line,
                    at.column
                )
            });
            Error::Parse(ParseError {
                line: at.line,
                column: at.column,
                reason,
            })
        })?;
    rows.extend(file.results.results.into_iter().map(|r| (0, r)));
    let passing = rows.iter().filter(|(_, r)| r.success).count();
    short_of_stats(rows.len(), passing, file.results.stats.as_ref())?;
    let eval = (file.eval_id, file.results.timestamp);
    judge(rows, opts, Layout::Json).map(|r| r.of_eval(eval))
}

/// The refusal of one more row when a file already holds [`super::MAX_CASES_PER_FILE`]: the
/// streamed readers parse each row apart, which the parse-time count ([`super::capped`])
/// does not see (review 49, c01: 1.2 million rows held 2.7 GB before the ledger refused).
fn past_the_cap(rows: usize, line: u64) -> Result<(), Error> {
    if rows as u64 >= super::MAX_CASES_PER_FILE {
        return Err(Error::Parse(ParseError {
            line,
            column: 1,
            reason: super::capped::too_many("test", super::MAX_CASES_PER_FILE),
        }));
    }
    Ok(())
}

/// A serde_json message without its ` at line L column C` (the position is the skeleton's or
/// the row's, not the file's, and is said again mapped).
struct Bare(String);

impl std::fmt::Display for Bare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let s = self.0.as_str();
        let s = s.rfind(" at line ").map_or(s, |i| &s[..i]);
        f.write_str(s)
    }
}

/// Whether a file's first bytes open promptfoo's `.jsonl`: its first non-blank line is complete
/// within them and is one result row. A first line longer than `prefix` says no, and the file
/// is then read whole (by [`read`]), which judges it alike.
pub fn starts_jsonl(prefix: &[u8]) -> bool {
    let s = prefix.strip_prefix("\u{feff}".as_bytes()).unwrap_or(prefix);
    s.split_inclusive(|&b| b == b'\n')
        .find(|l| !l.trim_ascii().is_empty())
        .filter(|l| l.ends_with(b"\n"))
        .and_then(|l| std::str::from_utf8(l).ok())
        .is_some_and(|l| looks_like_jsonl(l) && serde_json::from_str::<Row>(l).is_ok())
}

/// Read a `.jsonl` from a stream, a row a line, without holding the file (a real row is over a
/// kilobyte; only what judges it is kept, as for [`read_stream`]).
pub fn read_jsonl_stream(
    mut reader: impl std::io::BufRead,
    opts: &Options,
) -> Result<Results, Error> {
    let mut rows = Vec::new();
    let mut buf = Vec::new();
    let mut line_no = 0u64;
    loop {
        buf.clear();
        let n = reader.read_until(b'\n', &mut buf).map_err(|e| {
            Error::Parse(ParseError {
                line: line_no + 1,
                column: 1,
                reason: format!("cannot read promptfoo's results: {e}"),
            })
        })?;
        if n == 0 {
            break;
        }
        line_no += 1;
        let line = std::str::from_utf8(&buf).map_err(|e| {
            Error::Parse(ParseError {
                line: line_no,
                column: String::from_utf8_lossy(&buf[..e.valid_up_to()])
                    .chars()
                    .count() as u64
                    + 1,
                reason: "not UTF-8".into(),
            })
        })?;
        if let Some(row) = jsonl_row(line_no, line)? {
            past_the_cap(rows.len(), line_no)?;
            rows.push(row);
        }
    }
    judge(rows, opts, Layout::Jsonl)
}

impl Results {
    /// These results with the identity of their eval: the `evalId` and `timestamp` of a
    /// `results.json` (a `.jsonl` has neither), and every row's id, which [`judge`] set.
    fn of_eval(mut self, (eval_id, timestamp): (Option<String>, Option<String>)) -> Self {
        if let Some(id) = eval_id.filter(|i| !i.is_empty()) {
            self.identity
                .run_ids
                .insert(0, format!("promptfoo evalId `{id}`"));
        }
        self.identity
            .stamps
            .extend(timestamp.filter(|t| !t.is_empty()));
        self
    }
}

/// One line of a `.jsonl`: a row, or `None` for a blank line.
fn jsonl_row(line_no: u64, line: &str) -> Result<Option<(u64, Row)>, Error> {
    let line = line.strip_prefix('\u{feff}').unwrap_or(line);
    if line.trim().is_empty() {
        return Ok(None);
    }
    let line = json_nan::to_null(line);
    let row: Row = serde_json::from_str(&line).map_err(|e| {
        Error::Parse(ParseError {
            line: line_no,
            column: e.column() as u64,
            reason: format!("not a promptfoo result row: {}", Bare(e.to_string())),
        })
    })?;
    Ok(Some((line_no, row)))
}

/// Refuse rows short of the file's own `results.stats` (review 8, a06), and a `results.json`
/// without its totals (review 9, a03): every `results.json` promptfoo writes carries
/// `results.stats` with `successes` and `failures` (`toEvaluateSummary`, in every version), so
/// a file without them was edited, and its rows cannot be checked against anything.
///
/// The rows' composition is checked too (review 11, a15): more passing rows than the file's
/// own `successes` means a failing row was flipped or replaced by a copy of a passing one.
fn short_of_stats(rows: usize, passing: usize, stats: Option<&Stats>) -> Result<(), Error> {
    let refuse = |reason: String| {
        Err(Error::Parse(ParseError {
            line: 1,
            column: 1,
            reason,
        }))
    };
    let Some(st) = stats else {
        return refuse(
            "the file has no `results.stats`: every results.json promptfoo writes carries its own totals \
             (`successes`, `failures`), without which rows cut from the file's tail cannot be told from a \
             whole run, and reading the rest could turn a failure into a pass. Give promptfoo's file as it \
             wrote it"
                .to_string(),
        );
    };
    let (Some(successes), Some(failures)) = (st.successes, st.failures) else {
        return refuse(format!(
            "the file's `results.stats` lacks its `{}` count: promptfoo always writes both `successes` and \
             `failures`, so its totals were edited and cannot show whether rows were removed",
            if st.successes.is_none() {
                "successes"
            } else {
                "failures"
            }
        ));
    };
    let declared = successes.saturating_add(failures).saturating_add(st.errors);
    if (rows as u64) < declared {
        return refuse(format!(
            "the file holds {} rows, but its `results.stats` counts {declared} ({successes} successes, \
             {failures} failures, {} errors): rows were lost or removed (a cut tail leaves no `testIdx` gap), \
             and reading the rest could turn a failure into a pass",
            rows, st.errors
        ));
    }
    if (passing as u64) > successes {
        return refuse(format!(
            "{passing} of the file's rows pass, but its `results.stats` counts {successes} successes \
             ({failures} failures, {} errors): a failing row was changed or replaced, and reading the \
             rows as they are would turn a failure into a pass",
            st.errors
        ));
    }
    Ok(())
}

/// Read a `results.json` or `.jsonl`.
pub fn read(text: &str, opts: &Options) -> Result<Results, Error> {
    let text = json_nan::to_null(text);
    let first = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut eval = (None, None);
    let (rows, layout): (Vec<(u64, Row)>, Layout) =
        if looks_like_jsonl(first) && serde_json::from_str::<Row>(first).is_ok() {
            let mut rows = Vec::new();
            for (i, line) in text.lines().enumerate() {
                if let Some(row) = jsonl_row(i as u64 + 1, line)? {
                    rows.push(row);
                }
            }
            (rows, Layout::Jsonl)
        } else {
            let file: File = super::capped::from_str(&text).map_err(|e| {
                Error::Parse(ParseError {
                    line: e.line() as u64,
                    column: e.column() as u64,
                    reason: super::capped::reason(&e, |e| {
                        format!("not promptfoo's results (`.results.results[]`): {e}")
                    }),
                })
            })?;
            let passing = file.results.results.iter().filter(|r| r.success).count();
            short_of_stats(
                file.results.results.len(),
                passing,
                file.results.stats.as_ref(),
            )?;
            eval = (file.eval_id, file.results.timestamp);
            (
                file.results.results.into_iter().map(|r| (0, r)).collect(),
                Layout::Json,
            )
        };
    judge(rows, opts, layout).map(|r| r.of_eval(eval))
}

/// Which of promptfoo's files the rows came from.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// `results.json`: its `results.stats` totals were checked.
    Json,
    /// `.jsonl`: rows only, no totals and no closing line, written row by row as the eval runs.
    Jsonl,
}

/// Refuse a `.jsonl` whose tests have unequal row counts (review 9, a03). promptfoo writes a
/// `.jsonl` as bare rows, with no totals and no closing line, streaming them while the eval
/// runs, so a killed eval leaves a file that reads like a whole one. `--repeat N` gives every
/// test (× prompt × provider) N rows; a tail cut inside a test leaves that test short, and is
/// caught here. A cut exactly between two tests leaves nothing to see: results.json, whose
/// `results.stats` is checked, is the format to gate on (docs/ingest.md).
fn unequal_rows(trials: &[Trial]) -> Result<(), Error> {
    let mut counts: Vec<(&str, u64)> = Vec::new();
    let mut index: HashMap<&str, usize> = HashMap::new();
    for t in trials {
        match index.get(t.test.as_str()) {
            Some(&i) => counts[i].1 += 1,
            None => {
                index.insert(&t.test, counts.len());
                counts.push((&t.test, 1));
            }
        }
    }
    let most = counts.iter().map(|(_, n)| *n).max().unwrap_or(0);
    if let Some((test, n)) = counts.iter().find(|(_, n)| *n < most) {
        return Err(Error::Parse(ParseError {
            line: 1,
            column: 1,
            reason: format!(
                "test `{test}` has {n} row{} where other tests have {most}: `--repeat N` gives every test N rows, \
                 so rows are missing — a `.jsonl` is written row by row while the eval runs, and a killed eval \
                 leaves it cut short, with no total to show it. Rerun the eval; gate on results.json \
                 (`-o results.json`), whose `results.stats` totals are checked",
                if *n == 1 { "" } else { "s" }
            ),
        }));
    }
    Ok(())
}

/// Rows → trials.
fn judge(mut rows: Vec<(u64, Row)>, opts: &Options, layout: Layout) -> Result<Results, Error> {
    let cached = rows
        .iter()
        .filter(|(_, r)| r.response.as_ref().and_then(|x| x.cached) == Some(true))
        .count();
    if cached > 0 {
        return Err(Error::Refused(format!(
            "{cached} of {} rows are cache replays (`response.cached: true`): promptfoo answered them from \
             its cache, so the agent never ran for them and they are not trials of this build. Rerun with \
             --no-cache",
            rows.len()
        )));
    }
    let prompt_of = |r: &Row| {
        r.prompt
            .as_ref()
            .and_then(|p| p.label.clone().or_else(|| p.raw.clone()))
            .unwrap_or_else(|| format!("prompt {}", r.prompt_idx + 1))
    };
    let provider_of = |r: &Row| {
        r.provider
            .as_ref()
            .and_then(|p| {
                p.label
                    .clone()
                    .filter(|l| !l.is_empty())
                    .or_else(|| p.id.clone())
            })
            .unwrap_or_default()
    };
    let distinct = |f: &dyn Fn(&Row) -> String| {
        let mut seen: Vec<String> = rows.iter().map(|(_, r)| f(r)).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len() > 1
    };
    let several_prompts = distinct(&prompt_of);
    let several_providers = distinct(&provider_of);
    // Repeats are consecutive `testIdx`: that order is the run order.
    rows.sort_by_key(|(_, r)| (r.test_idx, r.prompt_idx));
    // promptfoo numbers its tests 0, 1, 2, … with no gap: a gap is a lost row (a truncated
    // `.jsonl`, a merge, failing rows removed), which must not read as a run without it
    // (review 7, c18).
    let mut expected = 0u64;
    for (line, r) in &rows {
        if r.test_idx > expected {
            return Err(Error::Parse(ParseError {
                line: (*line).max(1),
                column: 1,
                reason: format!(
                    "no row has `testIdx` {expected} (the next is {}): promptfoo numbers its rows without a \
                     gap, so rows were lost or removed, and reading the rest could turn a failure into a pass",
                    r.test_idx
                ),
            }));
        }
        expected = expected.max(r.test_idx + 1);
    }
    let mut repeats: HashMap<String, u64> = HashMap::new();
    // A test named by its description → the vars of its first row: a row with the same
    // description and other vars is another test (review 47, c07).
    let mut described: HashMap<String, Option<&serde_json::Value>> = HashMap::new();
    let mut json_ids = super::JsonIds::new();
    let mut trials = Vec::with_capacity(rows.len());
    let mut errors = 0;
    // Each row's id: one eval's `.json` and `.jsonl` (or a copy) share them (review 47, c01).
    // promptfoo gives every row its own (a UUID per test × repeat × prompt × provider; every
    // row of the real files differs), so one id twice in a file is a row written twice: a
    // failing row replaced by a copy of a passing one, which in a `.jsonl` (no totals to
    // check) read as a pass. Refused, as JUnit refuses one test case twice in a file.
    let mut first_line: HashMap<&str, u64> = HashMap::with_capacity(rows.len());
    // Every row of every real file has one; a row without one would be let past this check
    // (review 50, rev50d 20: the copy's `id` deleted), so it is refused too.
    for (n, (line, r)) in rows.iter().enumerate() {
        let Some(i) = r.id.as_deref().filter(|i| !i.is_empty()) else {
            let at = if layout == Layout::Jsonl {
                format!("row at line {line}")
            } else {
                format!("row {} of `results.results` (line {line})", n + 1)
            };
            return Err(Error::Parse(ParseError {
                line: (*line).max(1),
                column: 1,
                reason: format!(
                    "the promptfoo {at} has no `id`: promptfoo gives every row its own, and gate \
                     holds each file to one row per id (a row copied over another could turn a failure into \
                     a pass). Give promptfoo's file as it wrote it"
                ),
            }));
        };
        if let Some(first) = first_line.insert(i, *line) {
            let lines = if layout == Layout::Jsonl {
                format!(" (lines {first} and {line})")
            } else {
                String::new()
            };
            return Err(Error::Parse(ParseError {
                line: (*line).max(1),
                column: 1,
                reason: format!(
                    "two rows have the id `{}`{lines}: promptfoo gives every row its own, so a row was \
                     copied over another, and reading both could turn a failure into a pass. Give promptfoo's \
                     file as it wrote it",
                    crate::untrusted::one_line(&cut_text(i))
                ),
            }));
        }
    }
    let mut row_ids: Vec<String> = first_line
        .keys()
        .map(|i| format!("promptfoo result id `{i}`"))
        .collect();
    drop(first_line);
    row_ids.sort_unstable();
    for (line, r) in &rows {
        let case = r.test_case.as_ref();
        let mut vars_id = None;
        let mut id = match case.and_then(|c| c.description.clone()) {
            Some(d) if !d.is_empty() => d,
            _ => {
                let vars = case.and_then(|c| c.vars.as_ref()).or(r.vars.as_ref());
                match vars {
                    Some(v) => {
                        vars_id = Some(v);
                        v.to_string()
                    }
                    None => {
                        return Err(Error::Parse(ParseError {
                            line: (*line).max(1),
                            column: 1,
                            reason: format!(
                                "row of test {} has neither a description nor vars: no test identity",
                                r.test_idx
                            ),
                        }));
                    }
                }
            }
        };
        if several_prompts {
            id = format!("{id} [{}]", prompt_of(r));
        }
        if several_providers {
            id = format!("{id} [{}]", provider_of(r));
        }
        if vars_id.is_none() {
            // The id is the description: the repeats of one test carry the same vars, so
            // other vars under it are another test, whose failures would count among the
            // first one's passes. No vars are printed (they may hold a secret).
            let vars = case.and_then(|c| c.vars.as_ref()).or(r.vars.as_ref());
            let first = described.entry(id.clone()).or_insert(vars);
            if *first != vars {
                let d = case.and_then(|c| c.description.as_deref()).unwrap_or("");
                return Err(Error::Refused(format!(
                    "two tests share the description `{d}` but have different `vars` (row of test {}): gate \
                     names a promptfoo test by its description, so it would read them as repeats of one \
                     test and a test that fails could hide among the other's passes. Give each test its \
                     own description",
                    r.test_idx
                )));
            }
        }
        if let Some(v) = vars_id
            && !json_ids.contains_key(&id)
        {
            // The vars are redacted value by value before they are encoded again
            // ([`super::RunFile::redact`]): JSON's escaping would hide a secret holding `"`
            // or `\` from a redaction of the encoded text (review 47, c09).
            let rest = id[v.to_string().len()..].to_string();
            json_ids.insert(id.clone(), (v.clone(), rest));
        }
        let status = r
            .response
            .as_ref()
            .and_then(|x| x.metadata.as_ref())
            .and_then(|m| m.http.as_ref())
            .and_then(|h| h.status);
        let errored = r.failure_reason == Some(2) || status.is_some_and(|s| s >= 500);
        let n = repeats.entry(id.clone()).or_default();
        *n += 1;
        // `success` over a row whose `failureReason` says an assertion failed, or whose
        // `gradingResult` did not pass, is not a pass (review 7, c18).
        let graded_fail = r.failure_reason == Some(1)
            || r.grading_result.as_ref().and_then(|g| g.pass) == Some(false);
        let passed = r.success && !errored && !graded_fail;
        if errored {
            errors += 1;
        }
        let message = if passed {
            String::new()
        } else {
            let what = r.error.as_deref().unwrap_or("failed");
            let what: String = what
                .lines()
                .next()
                .unwrap_or("failed")
                .chars()
                .take(200)
                .collect();
            match (errored, status) {
                (true, Some(s)) => format!("error (HTTP {s}): {what}"),
                (true, None) => format!("error: {what}"),
                _ => what,
            }
        };
        trials.push(Trial {
            test: id,
            repeat: *n,
            attempts: vec![Attempt {
                passed,
                unavailable: errored && opts.errors_unavailable,
                duration_s: r.latency_ms.unwrap_or(0.0) / 1000.0,
                message,
                detail: cut_text(r.error.as_deref().unwrap_or("")),
            }],
        });
    }
    if layout == Layout::Jsonl {
        unequal_rows(&trials)?;
    }
    let mut notes = Vec::new();
    if errors > 0 {
        notes.push(if opts.errors_unavailable {
            format!("{errors} error row(s) (failureReason 2 or HTTP ≥ 500) are declared faults (`--errors unavailable`)")
        } else {
            format!(
                "{errors} error row(s) (failureReason 2 or HTTP ≥ 500) are failures; `--errors unavailable` makes them declared faults"
            )
        });
    }
    Ok(Results {
        trials,
        notes,
        json_ids,
        identity: super::Identity {
            run_ids: row_ids,
            ..Default::default()
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The streamed reader and the whole-text reader judge promptfoo's real results alike.
    #[test]
    fn streaming_reads_the_same_trials_as_the_whole_text() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/evals/promptfoo/results.json"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        assert!(starts_results_json(text.as_bytes()));
        assert!(!starts_results_json(b"{\"testIdx\": 0, \"success\": true}"));
        let opts = Options::default();
        let (Ok(whole), Ok(streamed)) = (read(&text, &opts), read_stream(text.as_bytes(), &opts))
        else {
            panic!("both read the fixture");
        };
        assert!(!whole.trials.is_empty());
        assert_eq!(whole.trials, streamed.trials);
        assert_eq!(whole.notes, streamed.notes);
    }

    /// The streamed `.jsonl` reader and the whole-text reader judge promptfoo's real `.jsonl`
    /// alike, and a bad line is named by its number in both.
    #[test]
    fn streaming_jsonl_reads_the_same_trials_as_the_whole_text() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/evals/promptfoo/results.jsonl"
        );
        let text = std::fs::read_to_string(path).expect("fixture");
        assert!(starts_jsonl(text.as_bytes()));
        assert!(!starts_results_json(text.as_bytes()));
        // Only a complete first line tells: a cut one is left to the whole-file reader.
        let first = text.find('\n').expect("two lines");
        assert!(!starts_jsonl(&text.as_bytes()[..first]));
        let opts = Options::default();
        let (Ok(whole), Ok(streamed)) = (
            read(&text, &opts),
            read_jsonl_stream(text.as_bytes(), &opts),
        ) else {
            panic!("both read the fixture");
        };
        assert_eq!(whole.trials.len(), 60);
        assert_eq!(whole.trials, streamed.trials);
        assert_eq!(whole.notes, streamed.notes);
        let broken = format!("{}{{\"testIdx\": oops}}\n", &text[..=first]);
        let line_of = |r: Result<Results, Error>| match r {
            Err(Error::Parse(e)) => e.line,
            _ => panic!("a broken second line is a parse error"),
        };
        assert_eq!(line_of(read(&broken, &opts)), 2);
        assert_eq!(line_of(read_jsonl_stream(broken.as_bytes(), &opts)), 2);
    }
}
