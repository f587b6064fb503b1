//! Inspect AI logs (`inspect eval TASK --epochs N`) → first-attempt trials per (task, sample).
//!
//! Read from Inspect 0.3.x's real logs (scripts/gen-eval-fixtures.sh):
//!
//! - A log holds one record per (sample, epoch): `id`, `epoch`, `scores.<scorer>.value`
//!   (C/I/P/N, a number or a boolean), `error`, and either `error_retries` (the errored
//!   attempts, in full sample records) or `retries` (their count, in `summaries.json`).
//!   A trial is one record; its test is `task::sample id`; its ordinal is its epoch.
//! - The default `.eval` format is a ZIP whose members are **zstd-compressed** (method 93):
//!   `header.json` (status, task, reducers), `summaries.json`, `reductions.json`,
//!   `samples/<id>_epoch_<n>.json`. The `.json` format is one document that may hold bare
//!   `NaN`/`Infinity` (see [`super::json_nan`]).
//! - **A summary is not the sample**: `summaries.json` repeats each (sample, epoch)'s scores,
//!   error and retry count without its transcript. gate grades the summaries, reads every
//!   sample member beside them for what only the transcript says (a model answer served from
//!   Inspect's cache), and refuses a log whose summaries and members disagree on a score, an
//!   error or a retry count, or where either lacks the other's record (review 47, c06, c23).
//!   A `.eval` with no sample members at all is read from its summaries alone.
//! - **The journal and the header were written apart from the records**: a `.eval` also holds
//!   `_journal/summaries/N.json`, the summaries as Inspect flushed them during the run, and the
//!   header's `results.scores[].metrics` (`accuracy`). A file rewritten in `summaries.json`
//!   and its sample members alike (review 49, c02) still disagrees with them: each journal
//!   entry must be a record gate grades, with its scores, and the header's `accuracy` must be
//!   what the records give ([`check_journal`], [`check_metrics`]). A file rewritten
//!   consistently in every member cannot be told from a real one.
//! - **Reducers hide the trials**: `max` reports C for a sample that fails most epochs. gate
//!   reads every epoch and ignores `results` and `reductions`, except to say in `gate explain`
//!   what they claimed.
//! - **Deferred retries**: with `--retry-on-error` the retries run after all first attempts and
//!   the epoch shows the retry's score; the failed first attempt survives only in
//!   `error_retries`. A non-empty `error_retries` is a first attempt that errored: a failure,
//!   or a declared fault with `--errors unavailable`.
//! - **Aborted runs exit 0**: by default an error aborts the eval, the log's status is
//!   `error`, only some epochs are logged, and in-flight ones end with `CancelledError`, while
//!   `inspect eval` exits 0. A log whose status is not `success` is refused unless
//!   `--allow-incomplete`, and there a cancelled epoch is no trial (not a failure). In a log
//!   whose status is `success` nothing was aborted, so an epoch that ends in `CancelledError`
//!   did not succeed: it is graded like any errored epoch (a failure; a declared fault under
//!   `--errors unavailable`), never dropped.
//! - Counts (`retries`, `epoch`, the length of `error_retries`) are [`Count`]s: at most
//!   [`super::MAX_COUNT`].
//!
//! A `.eval` file is untrusted input: members are decompressed through a size cap, so a zip
//! bomb costs at most [`MAX_MEMBER_BYTES`] per member and [`MAX_TOTAL_BYTES`] in all.

use std::collections::{BTreeMap, HashMap};
use std::io::Read;

use serde::Deserialize;

use super::capped::{Capped, Groups, Tests};
use super::{Attempt, Claim, Count, Options, ParseError, Trial, cut_text, json_nan};

/// Largest decompressed ZIP member read (64 MiB).
pub const MAX_MEMBER_BYTES: u64 = 64 << 20;
/// Largest total decompressed from one `.eval` file (256 MiB).
pub const MAX_TOTAL_BYTES: u64 = 256 << 20;

/// Why a log cannot be read.
pub enum Error {
    /// Not an Inspect log, or a damaged one.
    Parse(ParseError),
    /// Readable, but not something to judge as it stands (aborted, ambiguous scorer).
    Refused(String),
}

fn parse(reason: String) -> Error {
    Error::Parse(ParseError {
        line: 1,
        column: 1,
        reason,
    })
}

/// `header.json`, or the top of a `.json` log.
#[derive(Deserialize)]
struct Header {
    #[serde(default)]
    status: Option<String>,
    eval: Eval,
    #[serde(default)]
    error: Option<serde_json::Value>,
    #[serde(default)]
    results: Option<Results>,
}

#[derive(Deserialize)]
struct Eval {
    #[serde(default)]
    task: Option<String>,
    #[serde(default)]
    eval_id: Option<String>,
    #[serde(default)]
    run_id: Option<String>,
    #[serde(default)]
    dataset: Option<Dataset>,
    #[serde(default)]
    scorers: Option<Vec<Named>>,
    #[serde(default)]
    config: Option<Config>,
}

/// `eval.config`: the epochs each sample was asked to run.
#[derive(Deserialize)]
struct Config {
    /// A number in the logs Inspect writes; anything else is no declared count.
    #[serde(default)]
    epochs: Option<serde_json::Value>,
    /// The reducers asked for (`--epochs-reducer`): a list of names in the logs Inspect writes.
    #[serde(default)]
    epochs_reducer: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Dataset {
    #[serde(default)]
    sample_ids: Option<Capped<serde_json::Value, Groups>>,
}

#[derive(Deserialize)]
struct Named {
    name: String,
}

#[derive(Deserialize)]
struct Results {
    #[serde(default)]
    scores: Vec<ResultScore>,
    /// (sample, epoch) records the eval ran: a number in the logs Inspect writes.
    #[serde(default)]
    total_samples: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct ResultScore {
    #[serde(default)]
    scorer: Option<String>,
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    reducer: Option<String>,
    /// Per metric name, `{name, value, params}`: only `accuracy` is kept ([`check_metrics`]).
    #[serde(default)]
    metrics: Option<Metrics>,
}

/// The metrics of one score in the header's results, as far as gate reads them: the others
/// are skipped while parsed (serde ignores unknown fields), so no metric costs memory.
#[derive(Deserialize)]
struct Metrics {
    #[serde(default)]
    accuracy: Option<Metric>,
}

#[derive(Deserialize)]
struct Metric {
    /// A number in the logs Inspect writes (`NaN` is read as null).
    #[serde(default)]
    value: serde_json::Value,
}

/// One (sample, epoch) record: a full sample or its summary.
#[derive(Deserialize)]
struct Sample {
    id: serde_json::Value,
    epoch: Count,
    #[serde(default)]
    scores: Option<HashMap<String, Score>>,
    #[serde(default)]
    error: Option<serde_json::Value>,
    #[serde(default)]
    error_retries: Option<ErrorRetries>,
    #[serde(default)]
    retries: Option<Count>,
    #[serde(default)]
    total_time: Option<f64>,
    /// Its transcript, read only for whether a model event says `cache: read`; the events
    /// themselves are not kept, so a member of a million events costs no more than one.
    #[serde(default)]
    events: CacheRead,
}

/// Whether a sample's transcript holds a model event served from Inspect's cache: the one
/// thing gate reads from `events[]`, decided element by element as the list is parsed.
#[derive(Default)]
struct CacheRead(bool);

impl<'de> Deserialize<'de> for CacheRead {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Events;
        impl<'de> serde::de::Visitor<'de> for Events {
            type Value = CacheRead;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of events")
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<CacheRead, E> {
                Ok(CacheRead(false))
            }
            fn visit_none<E: serde::de::Error>(self) -> Result<CacheRead, E> {
                Ok(CacheRead(false))
            }
            fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<CacheRead, D::Error> {
                d.deserialize_seq(Events)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<CacheRead, A::Error> {
                let mut cached = false;
                while let Some(e) = seq.next_element::<SampleEvent>()? {
                    cached |=
                        e.event.as_deref() == Some("model") && e.cache.as_deref() == Some("read");
                }
                Ok(CacheRead(cached))
            }
        }
        d.deserialize_option(Events)
    }
}

/// One event of a sample's transcript, as far as gate reads it.
#[derive(Deserialize)]
struct SampleEvent {
    #[serde(default)]
    event: Option<String>,
    /// `read` when the model's output came from Inspect's cache (`generate(cache=True)`,
    /// `--cache`): a replay of an earlier eval's answer, not a new sample of the model.
    #[serde(default)]
    cache: Option<String>,
}

/// A sample's `error_retries`, read element by element: one more than
/// [`super::MAX_COUNT`] is refused while the list is parsed, so a small compressed member
/// that expands to millions of entries (a 28 KB `.eval` once took 2.7 GB before its count
/// was checked: issue 29 review, B4) costs no more than the cap's worth of values.
struct ErrorRetries(Vec<serde_json::Value>);

impl std::ops::Deref for ErrorRetries {
    type Target = [serde_json::Value];
    fn deref(&self) -> &[serde_json::Value] {
        &self.0
    }
}

impl<'de> Deserialize<'de> for ErrorRetries {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bounded;
        impl<'de> serde::de::Visitor<'de> for Bounded {
            type Value = ErrorRetries;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a list of errors")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<ErrorRetries, A::Error> {
                let mut out = Vec::new();
                while let Some(v) = seq.next_element::<serde_json::Value>()? {
                    if out.len() as u64 >= super::MAX_COUNT {
                        return Err(serde::de::Error::custom(format!(
                            "`error_retries` holds more than {} entries, more than the {} gate reads \
                             from a result file (retries are bounded: docs/ingest.md)",
                            super::MAX_COUNT,
                            super::MAX_COUNT
                        )));
                    }
                    out.push(v);
                }
                Ok(ErrorRetries(out))
            }
        }
        d.deserialize_seq(Bounded)
    }
}

#[derive(Deserialize)]
struct Score {
    #[serde(default)]
    value: serde_json::Value,
}

/// A `.json` log: the header's fields and the samples.
#[derive(Deserialize)]
struct JsonLog {
    #[serde(flatten)]
    header: Header,
    #[serde(default)]
    samples: Option<Capped<Sample, Tests>>,
    #[serde(default)]
    reductions: Option<Capped<Reduction, Groups>>,
}

/// `reductions.json`: per scorer and reducer, the value reported per sample.
#[derive(Deserialize)]
struct Reduction {
    scorer: String,
    #[serde(default)]
    reducer: Option<String>,
    samples: Capped<Reduced, Groups>,
}

#[derive(Deserialize)]
struct Reduced {
    #[serde(default)]
    value: serde_json::Value,
    sample_id: serde_json::Value,
}

/// What a log holds.
pub struct Log {
    /// First-attempt trials: per sample, in epoch order.
    pub trials: Vec<Trial>,
    /// Epochs cancelled (an aborted run): no trial.
    pub cancelled: u64,
    /// The test id of each cancelled epoch.
    pub cancelled_tests: Vec<String>,
    /// What the reader said about the log.
    pub notes: Vec<String>,
    /// What the reducers reported, per sample, for `gate explain`.
    pub claims: Vec<Claim>,
    /// The log's `eval_id` and `run_id`, labelled: the same eval's log, converted between
    /// `.eval` and `.json` or repacked, keeps them.
    pub run_ids: Vec<String>,
}

/// Read a `.eval` (ZIP) or `.json` log.
pub fn read(bytes: &[u8], opts: &Options) -> Result<Log, Error> {
    let zipped = bytes.starts_with(b"PK\x03\x04");
    let (header, samples, reductions) = if zipped {
        read_zip(bytes)?
    } else {
        let text = std::str::from_utf8(bytes).map_err(|e| parse(format!("not UTF-8: {e}")))?;
        let text = json_nan::to_null(text);
        let log: JsonLog = super::capped::from_str(&text).map_err(|e| {
            Error::Parse(ParseError {
                line: e.line() as u64,
                column: e.column() as u64,
                reason: super::capped::reason(&e, |e| {
                    format!("not an Inspect log (`.eval`, `.samples[]`): {e}")
                }),
            })
        })?;
        let samples = log.samples.ok_or_else(|| {
            Error::Refused(
                "the log holds no samples (written with `--no-log-samples`?): gate judges every epoch, and the \
                 log's reduced results alone hide them. Rerun with samples logged"
                    .into(),
            )
        })?;
        (log.header, samples.0, log.reductions.unwrap_or_default().0)
    };
    let results_at = if zipped {
        "`header.json`"
    } else {
        "the log's `results`"
    };
    judge(header, samples, reductions, opts, results_at)
}

/// The members of a `.eval` ZIP that gate reads.
fn read_zip(bytes: &[u8]) -> Result<(Header, Vec<Sample>, Vec<Reduction>), Error> {
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes))
        .map_err(|e| parse(format!("not a readable `.eval` ZIP: {e}")))?;
    let mut budget = MAX_TOTAL_BYTES;
    let header: Header = {
        let text = member(&mut zip, "header.json", &mut budget)?.ok_or_else(|| {
            Error::Refused(
                "no `header.json` in the `.eval` file: the eval never finished writing its log (killed?)".into(),
            )
        })?;
        from_member("header.json", &text)?
    };
    let names: Vec<String> = zip
        .file_names()
        .filter_map(Result::ok)
        .filter(|n| n.starts_with("samples/") && n.ends_with(".json"))
        .map(|n| n.into_owned())
        .collect();
    // One (sample, epoch) per member: held to the per-file record cap like the records of
    // summaries.json and of a `.json` log.
    if names.len() as u64 > super::MAX_CASES_PER_FILE {
        return Err(parse(super::capped::too_many(
            "sample member",
            super::MAX_CASES_PER_FILE,
        )));
    }
    // summaries.json has every (sample, epoch) with its scores, error and retry count, but no
    // transcript; the sample members hold the transcripts. Both are read when both are there:
    // the summaries alone would hide a cache replay and could say C where a sample says I
    // (review 47, c06 and c23).
    let samples: Vec<Sample> = match member(&mut zip, "summaries.json", &mut budget)? {
        Some(text) => {
            let mut summaries = from_member::<Capped<Sample, Tests>>("summaries.json", &text)?.0;
            drop(text);
            if !names.is_empty() {
                check_members(&mut zip, &names, &mut summaries, &mut budget)?;
            }
            summaries
        }
        None => {
            let mut out = Vec::with_capacity(names.len());
            for name in names {
                if let Some(text) = member(&mut zip, &name, &mut budget)? {
                    out.push(from_member(&name, &text)?);
                }
            }
            out
        }
    };
    check_journal(&mut zip, &samples, &mut budget)?;
    let reductions = match member(&mut zip, "reductions.json", &mut budget)? {
        Some(text) => from_member::<Capped<Reduction, Groups>>("reductions.json", &text)?.0,
        None => Vec::new(),
    };
    Ok((header, samples, reductions))
}

/// Hold `summaries.json` to the sample members beside it: each member is read in turn (through
/// the same caps as every member, and dropped once checked, so one member's text is held at a
/// time), and must have a summary of its (sample, epoch) whose scores, error and retry count
/// are the member's; every summary must have its member. What only the member holds, whether
/// the model's answer came from Inspect's cache, is carried onto its summary for [`judge`].
/// A log repacked or edited so that the two disagree is refused: which one to believe is not
/// gate's to guess, and the summary alone turned failing epochs into passes (review 47, c23).
fn check_members(
    zip: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>,
    names: &[String],
    summaries: &mut [Sample],
    budget: &mut u64,
) -> Result<(), Error> {
    let mut index: HashMap<(String, u64), usize> = HashMap::with_capacity(summaries.len());
    for (i, s) in summaries.iter().enumerate() {
        index.entry((id_text(&s.id), s.epoch.0)).or_insert(i);
    }
    let mut checked = vec![false; summaries.len()];
    let disagree = |id: &str, epoch: u64, name: &str, what: String| {
        Error::Refused(format!(
            "sample `{}` epoch {epoch}: `summaries.json` and its member `{}` disagree ({what}): the log was \
             repacked or edited, and gate will not pick one to grade. Give the log as `inspect eval` wrote it",
            crate::untrusted::one_line(id),
            crate::untrusted::one_line(name)
        ))
    };
    for name in names {
        let Some(text) = member(zip, name, budget)? else {
            continue;
        };
        let mut full: Sample = from_member(name, &text)?;
        drop(text);
        let id = id_text(&full.id);
        let epoch = full.epoch.0;
        let Some(&i) = index.get(&(id.clone(), epoch)) else {
            return Err(disagree(
                &id,
                epoch,
                name,
                "the member has no summary".into(),
            ));
        };
        if std::mem::replace(&mut checked[i], true) {
            return Err(parse(format!(
                "sample `{}` epoch {epoch} has two sample members; a log has one record per (sample, epoch)",
                crate::untrusted::one_line(&id)
            )));
        }
        let summary = &mut summaries[i];
        let values = |s: &Sample| -> BTreeMap<String, serde_json::Value> {
            s.scores
                .iter()
                .flatten()
                .map(|(k, v)| (k.clone(), v.value.clone()))
                .collect()
        };
        let (said, holds) = (values(summary), values(&full));
        if said != holds {
            let scorer = said
                .keys()
                .chain(holds.keys())
                .find(|k| said.get(*k) != holds.get(*k))
                .cloned()
                .unwrap_or_default();
            let at = |m: &BTreeMap<String, serde_json::Value>| {
                m.get(&scorer).map_or_else(|| "no score".to_string(), show)
            };
            return Err(disagree(
                &id,
                epoch,
                name,
                format!(
                    "`{}`: the summary says {}, the sample says {}",
                    crate::untrusted::one_line(&scorer),
                    at(&said),
                    at(&holds)
                ),
            ));
        }
        let errored = |s: &Sample| s.error.as_ref().is_some_and(|e| !e.is_null());
        if errored(summary) != errored(&full) {
            return Err(disagree(
                &id,
                epoch,
                name,
                "one records an error, the other none".into(),
            ));
        }
        // A summary keeps the count of errored attempts (`retries`), a sample the attempts. A
        // summary written without the count (an older Inspect) takes the sample's attempts.
        match (summary.retries, &full.error_retries) {
            (Some(said), Some(r)) if said.0 != r.len() as u64 => {
                return Err(disagree(
                    &id,
                    epoch,
                    name,
                    format!(
                        "the summary counts {} errored attempt(s), the sample holds {}",
                        said.0,
                        r.len()
                    ),
                ));
            }
            (None, Some(_)) => summary.error_retries = full.error_retries.take(),
            _ => {}
        }
        summary.events.0 |= full.events.0;
    }
    if let Some(i) = checked.iter().position(|c| !c) {
        let s = &summaries[i];
        return Err(disagree(
            &id_text(&s.id),
            s.epoch.0,
            &format!("samples/{}_epoch_{}.json", id_text(&s.id), s.epoch.0),
            "the summary has no sample member".into(),
        ));
    }
    Ok(())
}

/// The scores a record holds, per scorer: what a summary, its sample member and its journal
/// entry must agree on.
fn score_values(s: &Sample) -> BTreeMap<String, serde_json::Value> {
    s.scores
        .iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.value.clone()))
        .collect()
}

/// Hold the records gate grades to `_journal/summaries/N.json`, the summaries Inspect wrote
/// as the run went (one member per flush of finished samples; `summaries.json` is written at
/// the end from the same list). In every real `.eval` (scripts/gen-eval-fixtures.sh: three
/// logs, a `success`, a `--retry-on-error` and an aborted one) the journal's entries are
/// exactly `summaries.json`'s. A file whose failing epochs were rewritten to C in
/// `summaries.json` and in the sample members still said I here, and read as a pass
/// (review 49, c02). Compared: per (sample, epoch), the scores, whether an error is
/// recorded, and the retry count where the journal says one (a record without one counts
/// none); every journal entry must be a record
/// gate reads, and every record must be in the journal. Inspect replaces a (sample, epoch)'s
/// summary when it logs it again (`eval-retry`, `inspect score --overwrite`), each time in a
/// new journal member, so the entry in the highest-numbered member is the one compared.
/// A `.eval` without any journal member is not compared (gate cannot tell one written
/// without it from one stripped of it); neither is a `.json` log, which has no journal.
fn check_journal(
    zip: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>,
    records: &[Sample],
    budget: &mut u64,
) -> Result<(), Error> {
    const DIR: &str = "_journal/summaries/";
    let mut journal: Vec<(u64, String)> = Vec::new();
    for name in zip.file_names().filter_map(Result::ok) {
        let Some(n) = name.strip_prefix(DIR) else {
            continue;
        };
        // Inspect numbers its flushes 1, 2, …; any other name is not Inspect's, and a name
        // gate skipped would be a journal entry kept out of the comparison.
        let number = n
            .strip_suffix(".json")
            .filter(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|d| d.parse::<u64>().ok())
            .ok_or_else(|| {
                parse(format!(
                    "member `{}`: Inspect numbers its journal's summaries `{DIR}1.json`, `{DIR}2.json`, …",
                    crate::untrusted::one_line(&name)
                ))
            })?;
        journal.push((number, name.to_string()));
    }
    if journal.is_empty() {
        return Ok(());
    }
    // One member per flush: at most one per record, held to the per-file record cap as the
    // sample members are.
    if journal.len() as u64 > super::MAX_CASES_PER_FILE {
        return Err(parse(super::capped::too_many(
            "journal member",
            super::MAX_CASES_PER_FILE,
        )));
    }
    journal.sort();
    // A (sample, epoch) recorded twice is refused in [`judge`], with its own words: here the
    // first record of a key stands for it.
    let mut index: HashMap<(String, u64), usize> = HashMap::with_capacity(records.len());
    for (i, s) in records.iter().enumerate() {
        index.entry((id_text(&s.id), s.epoch.0)).or_insert(i);
    }
    // Per record, what its latest journal entry said: `None` when no entry names it yet,
    // `Some(None)` when it agreed, `Some(Some((member, why)))` when it did not.
    let mut said: Vec<Option<Option<(String, String)>>> = vec![None; records.len()];
    for (_, name) in &journal {
        let Some(text) = member(zip, name, budget)? else {
            continue;
        };
        // Parsed like `summaries.json` (through the per-file record cap), one member at a
        // time; only the verdict per record is kept.
        let entries = from_member::<Capped<Sample, Tests>>(name, &text)?.0;
        drop(text);
        for entry in entries {
            let id = id_text(&entry.id);
            let Some(&i) = index.get(&(id.clone(), entry.epoch.0)) else {
                return Err(Error::Refused(format!(
                    "member `{}` records sample `{}` epoch {}, which the log's summaries and samples do not: \
                     the log was edited, and gate will not grade what is left. Give the log as `inspect eval` wrote it",
                    crate::untrusted::one_line(name),
                    crate::untrusted::one_line(&id),
                    entry.epoch.0
                )));
            };
            let record = &records[i];
            let (journal_scores, graded) = (score_values(&entry), score_values(record));
            let errored = |s: &Sample| s.error.as_ref().is_some_and(|e| !e.is_null());
            let why = if journal_scores != graded {
                let scorer = graded
                    .keys()
                    .chain(journal_scores.keys())
                    .find(|k| graded.get(*k) != journal_scores.get(*k))
                    .cloned()
                    .unwrap_or_default();
                let at = |m: &BTreeMap<String, serde_json::Value>| {
                    m.get(&scorer).map_or_else(|| "no score".to_string(), show)
                };
                Some(format!(
                    "`{}`: the journal says {}, `summaries.json` and the sample say {}",
                    crate::untrusted::one_line(&scorer),
                    at(&journal_scores),
                    at(&graded)
                ))
            } else if errored(&entry) != errored(record) {
                Some("one records an error, the other none".to_string())
            } else {
                // The count a side gives: its `error_retries`, else its `retries`. The record's
                // is the count gate grades (none is 0); a journal entry without one is not
                // compared, but one that counts errored attempts the record does not have was
                // hidden from it (review 50, rev50d 10: the key deleted from `summaries.json`).
                let count = |s: &Sample| {
                    s.error_retries
                        .as_ref()
                        .map(|r| r.len() as u64)
                        .or(s.retries.map(|c| c.0))
                };
                // A journal entry whose two counts disagree (`retries: 2` beside an added
                // `error_retries: []`: review 50, rev50e 06) counts the larger.
                let journal = match (entry.error_retries.as_ref(), entry.retries) {
                    (Some(r), Some(c)) => Some((r.len() as u64).max(c.0)),
                    _ => count(&entry),
                };
                match (journal, count(record).unwrap_or(0)) {
                    (Some(a), b) if a != b => Some(format!(
                        "the journal counts {a} errored attempt(s), `summaries.json` and the sample {b}"
                    )),
                    _ => None,
                }
            };
            said[i] = Some(why.map(|w| (name.clone(), w)));
        }
    }
    for (i, verdict) in said.iter().enumerate() {
        let s = &records[i];
        if index.get(&(id_text(&s.id), s.epoch.0)) != Some(&i) {
            continue;
        }
        let id = id_text(&s.id);
        let id = crate::untrusted::one_line(&id);
        match verdict {
            Some(None) => {}
            Some(Some((name, why))) => {
                return Err(Error::Refused(format!(
                    "sample `{id}` epoch {}: member `{}` and the log's summaries and samples disagree ({why}): \
                     the log was edited after the run, and gate will not pick one to grade. Give the log as \
                     `inspect eval` wrote it",
                    s.epoch.0,
                    crate::untrusted::one_line(name)
                )));
            }
            None => {
                return Err(Error::Refused(format!(
                    "sample `{id}` epoch {}: no member of `{DIR}` records it, though the journal holds the \
                     summaries of the run: the log was edited, and gate will not grade it. Give the log as \
                     `inspect eval` wrote it",
                    s.epoch.0
                )));
            }
        }
    }
    Ok(())
}

/// Parse one member's JSON, naming the member on failure.
fn from_member<T: serde::de::DeserializeOwned>(name: &str, text: &str) -> Result<T, Error> {
    let text = json_nan::to_null(text);
    super::capped::from_str(&text).map_err(|e| {
        let what = super::capped::reason(&e, |e| format!("not what Inspect writes there: {e}"));
        parse(format!(
            "member `{name}`, line {} column {}: {what}",
            e.line(),
            e.column()
        ))
    })
}

/// One member, decompressed through the caps; `None` when the ZIP has no such member.
fn member(
    zip: &mut zip::ZipArchive<std::io::Cursor<&[u8]>>,
    name: &str,
    budget: &mut u64,
) -> Result<Option<String>, Error> {
    let Some(index) = zip.index_for_name(name) else {
        return Ok(None);
    };
    let bad = |e: &dyn std::fmt::Display| parse(format!("member `{name}`: cannot read it: {e}"));
    let cap = MAX_MEMBER_BYTES.min(*budget);
    let mut out = Vec::new();
    {
        let raw = zip.by_index_raw(index).map_err(|e| bad(&e))?;
        let method = raw.compression();
        // Inspect 0.3.x writes zstd (method 93); a stored member is read as it is.
        if method == zip::CompressionMethod::ZSTD {
            let mut dec = ruzstd::decoding::StreamingDecoder::new(raw).map_err(|e| bad(&e))?;
            (&mut dec)
                .take(cap + 1)
                .read_to_end(&mut out)
                .map_err(|e| bad(&e))?;
        } else if method == zip::CompressionMethod::Stored {
            raw.take(cap + 1)
                .read_to_end(&mut out)
                .map_err(|e| bad(&e))?;
        } else {
            return Err(parse(format!(
                "member `{name}` is compressed with {method}, which gate does not read (Inspect writes zstd); \
                 convert the log with `inspect log convert --to json` and ingest the `.json`"
            )));
        }
    }
    if out.len() as u64 > cap {
        return Err(parse(format!(
            "member `{name}` decompresses to more than {} MiB (a zip bomb?); gate reads up to {} MiB per member \
             and {} MiB per log",
            cap >> 20,
            MAX_MEMBER_BYTES >> 20,
            MAX_TOTAL_BYTES >> 20
        )));
    }
    *budget -= out.len() as u64;
    String::from_utf8(out)
        .map(Some)
        .map_err(|e| parse(format!("member `{name}`: not UTF-8: {e}")))
}

/// A sample id as text (Inspect allows strings and integers).
fn id_text(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// An error's message: a string (summaries) or `{message, traceback}` (samples).
fn error_text(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(m) => Some(
            m.get("message")
                .and_then(|x| x.as_str())
                .unwrap_or("error")
                .to_string(),
        ),
        other => Some(other.to_string()),
    }
}

/// A score value as a number, as Inspect's `value_to_float` reads it: C = 1, P = 0.5,
/// I = N = 0, booleans, numbers and numeric strings. `None` when it is none of those.
fn value_to_float(v: &serde_json::Value) -> Option<f64> {
    match v {
        serde_json::Value::Bool(b) => Some(if *b { 1.0 } else { 0.0 }),
        serde_json::Value::Number(n) => n.as_f64(),
        serde_json::Value::String(s) => match s.trim() {
            "C" => Some(1.0),
            "P" => Some(0.5),
            "I" | "N" => Some(0.0),
            t if t.eq_ignore_ascii_case("yes") || t.eq_ignore_ascii_case("true") => Some(1.0),
            t if t.eq_ignore_ascii_case("no") || t.eq_ignore_ascii_case("false") => Some(0.0),
            t => t.parse::<f64>().ok().filter(|x| x.is_finite()),
        },
        _ => None,
    }
}

/// The header, records and reductions → trials, refusals and claims.
fn judge(
    header: Header,
    mut samples: Vec<Sample>,
    reductions: Vec<Reduction>,
    opts: &Options,
    results_at: &str,
) -> Result<Log, Error> {
    let status = header.status.clone().unwrap_or_else(|| "unknown".into());
    let run_ids: Vec<String> = [
        ("eval_id", &header.eval.eval_id),
        ("run_id", &header.eval.run_id),
    ]
    .into_iter()
    .filter_map(|(k, v)| v.as_ref().map(|v| format!("Inspect {k} `{v}`")))
    .collect();
    let mut notes = Vec::new();
    if status != "success" {
        let why = header
            .error
            .as_ref()
            .and_then(error_text)
            .map(|m| format!(" ({m})"))
            .unwrap_or_default();
        if !opts.allow_incomplete {
            return Err(Error::Refused(format!(
                "the log's status is `{status}`{why}, not `success`: the eval stopped before every epoch ran \
                 (`inspect eval` exits 0 all the same), so its epochs are not the trials asked for. Fix the \
                 error and rerun (`--retry-on-error` or `--fail-on-error` settings), or pass `--allow-incomplete` \
                 to judge the epochs that finished"
            )));
        }
        notes.push(format!(
            "the log's status is `{status}`{why}; read with `--allow-incomplete`: only the epochs that finished are trials"
        ));
    }
    let task = header.eval.task.clone().unwrap_or_else(|| "task".into());
    // The scorer: named, or the only one.
    let mut scorers: Vec<String> = header
        .eval
        .scorers
        .as_ref()
        .map(|s| s.iter().map(|n| n.name.clone()).collect())
        .unwrap_or_default();
    for s in &samples {
        for k in s.scores.iter().flat_map(|m| m.keys()) {
            if !scorers.contains(k) {
                scorers.push(k.clone());
            }
        }
    }
    let scorer = match (&opts.scorer, scorers.len()) {
        (Some(name), _) => {
            if !scorers.contains(name) {
                return Err(Error::Refused(format!(
                    "`--scorer {name}`: the log has no such scorer (it has {})",
                    list(&scorers)
                )));
            }
            name.clone()
        }
        (None, 1) => scorers[0].clone(),
        (None, 0) => {
            return Err(Error::Refused(
                "the log names no scorer and no sample has a score: nothing to grade".into(),
            ));
        }
        (None, _) => {
            return Err(Error::Refused(format!(
                "the log has {} scorers ({}); say which one grades a sample with `--scorer NAME` (gate will not guess)",
                scorers.len(),
                list(&scorers)
            )));
        }
    };
    let threshold = opts.pass_threshold;

    // Per sample, epochs in order; samples in the order the dataset first lists them.
    let mut first_seen: HashMap<String, usize> = HashMap::new();
    let listed = header
        .eval
        .dataset
        .as_ref()
        .and_then(|d| d.sample_ids.as_deref());
    for (i, id) in listed.into_iter().flatten().enumerate() {
        first_seen.entry(id_text(id)).or_insert(i);
    }
    let offset = first_seen.len();
    for (i, s) in samples.iter().enumerate() {
        first_seen.entry(id_text(&s.id)).or_insert(offset + i);
    }
    samples.sort_by_key(|s| (first_seen[&id_text(&s.id)], s.epoch));
    let complete = status == "success";
    if complete {
        check_complete(&header, listed, &samples)?;
        check_metrics(&header, &samples, &scorer, results_at)?;
    }
    let mut trials = Vec::with_capacity(samples.len());
    let mut cancelled = 0;
    let mut cancelled_tests = Vec::new();
    let mut errored_first = 0;
    let mut retried = 0;
    let mut spent = 0;
    let mut seen: HashMap<(String, u64), ()> = HashMap::new();
    for s in &samples {
        let id = id_text(&s.id);
        // An epoch whose model answer came from Inspect's cache is an earlier eval's answer
        // again: not a trial of this run, as promptfoo's cached rows are not (review 7, c37).
        if s.events.0 {
            return Err(Error::Refused(format!(
                "sample `{}` epoch {}: its model output was read from Inspect's cache (a model event with \
                 `cache: read`), so it replays an earlier eval's answer and is not a trial of this one. \
                 Run the eval with the cache off (no `--cache`, no `generate(cache=...)`)",
                crate::untrusted::one_line(&id),
                s.epoch.0
            )));
        }
        if seen.insert((id.clone(), s.epoch.0), ()).is_some() {
            return Err(parse(format!(
                "sample `{id}` epoch {} is recorded twice; a log has one record per (sample, epoch)",
                s.epoch.0
            )));
        }
        let error = s.error.as_ref().and_then(error_text);
        // Cut off when the eval aborted: not a grade of the agent, in a log that says it
        // stopped (read with `--allow-incomplete`). In a log whose status is `success` nothing
        // was aborted, so a cancelled epoch is an epoch that did not succeed (a sample's own
        // time limit, or a task that cancelled itself): a failure, graded like an error.
        if !complete
            && error
                .as_deref()
                .is_some_and(|e| e.starts_with("CancelledError"))
        {
            cancelled += 1;
            cancelled_tests.push(format!("{task}::{id}"));
            continue;
        }
        let retries = match &s.error_retries {
            Some(r) => {
                Count::new(
                    r.len() as u64,
                    &format!(
                        "sample `{id}` epoch {}: the number of `error_retries`",
                        s.epoch.0
                    ),
                )
                .map_err(parse)?
                .0
            }
            None => s.retries.unwrap_or_default().0,
        };
        // Bounded over the whole log before the attempts are built.
        super::spend_retries(&mut spent, retries).map_err(parse)?;
        let first_error = if retries > 0 {
            retried += 1;
            let first = s
                .error_retries
                .as_ref()
                .and_then(|r| r.first())
                .and_then(error_text)
                .unwrap_or_else(|| "an error (recorded as a retry count)".into());
            Some(format!(
                "first attempt errored and was retried (`--retry-on-error`; {retries} errored attempt(s)): {first}"
            ))
        } else {
            error.clone().map(|e| format!("error: {e}"))
        };
        let duration_s = s.total_time.unwrap_or(0.0);
        // The score the record carries: the first attempt's, or after `--retry-on-error` the
        // last retry's.
        let scored = || -> Result<Attempt, Error> {
            let value = s
                .scores
                .as_ref()
                .and_then(|m| m.get(&scorer))
                .map(|x| &x.value);
            Ok(match value {
                None => Attempt {
                    passed: false,
                    unavailable: false,
                    duration_s,
                    message: format!("no `{scorer}` score recorded"),
                    detail: String::new(),
                },
                Some(v) => match value_to_float(v) {
                    Some(x) => Attempt {
                        passed: x >= threshold,
                        unavailable: false,
                        duration_s,
                        message: if x >= threshold {
                            String::new()
                        } else {
                            format!("`{scorer}` scored {} (a pass is ≥ {threshold})", show(v))
                        },
                        detail: String::new(),
                    },
                    None if v.is_null() => Attempt {
                        passed: false,
                        unavailable: false,
                        duration_s,
                        message: format!("`{scorer}` has no value (NaN or null)"),
                        detail: String::new(),
                    },
                    None => {
                        return Err(parse(format!(
                            "sample `{id}` epoch {}: `{scorer}` value {} is not C/I/P/N, a number or a boolean; \
                             pick a scorer with a single value (`--scorer`)",
                            s.epoch.0,
                            cut_text(&v.to_string())
                        )));
                    }
                },
            })
        };
        let attempts = match first_error {
            Some(why) => {
                errored_first += 1;
                let errored = |message: String, unavailable: bool| Attempt {
                    passed: false,
                    unavailable,
                    duration_s: 0.0,
                    message,
                    detail: String::new(),
                };
                let mut v = vec![errored(
                    why.chars().take(500).collect(),
                    opts.errors_unavailable,
                )];
                if retries > 0 {
                    // The later errored attempts, then the retry whose score the epoch shows:
                    // recorded, never graded.
                    for r in 1..retries {
                        let what = s
                            .error_retries
                            .as_ref()
                            .and_then(|x| x.get(r as usize))
                            .and_then(error_text)
                            .unwrap_or_else(|| "error".into());
                        v.push(errored(
                            format!("retry errored: {what}").chars().take(500).collect(),
                            false,
                        ));
                    }
                    match &error {
                        Some(e) => v.push(errored(
                            format!("error: {e}").chars().take(500).collect(),
                            false,
                        )),
                        None => v.push(scored()?),
                    }
                }
                v
            }
            None => vec![scored()?],
        };
        trials.push(Trial {
            test: format!("{task}::{id}"),
            repeat: s.epoch.0,
            attempts,
        });
    }
    if cancelled > 0 {
        notes.push(format!(
            "{cancelled} epoch(s) were cancelled when the eval stopped; they are not trials (not failures)"
        ));
    }
    if retried > 0 {
        notes.push(format!(
            "{retried} epoch(s) show a retry's score (`error_retries`): their first attempt errored, and that is what gate grades"
        ));
    }
    if errored_first > 0 {
        notes.push(if opts.errors_unavailable {
            format!("{errored_first} errored first attempt(s) are declared faults (`--errors unavailable`)")
        } else {
            format!(
                "{errored_first} errored first attempt(s) are failures; `--errors unavailable` makes them declared faults"
            )
        });
    }
    // What the reducers said, for `gate explain`; never used to grade.
    let mut claims = Vec::new();
    let reducer_of = |r: &Reduction| {
        r.reducer.clone().unwrap_or_else(|| {
            header
                .results
                .as_ref()
                .and_then(|res| {
                    res.scores
                        .iter()
                        .find(|s| s.scorer.as_deref().or(s.name.as_deref()) == Some(&r.scorer))
                        .and_then(|s| s.reducer.clone())
                })
                .unwrap_or_else(|| "mean".into())
        })
    };
    let mut reducers: BTreeMap<String, ()> = BTreeMap::new();
    for r in reductions.iter().filter(|r| r.scorer == scorer) {
        let reducer = reducer_of(r);
        reducers.insert(reducer.clone(), ());
        for s in &r.samples {
            claims.push(Claim {
                test: format!("{task}::{}", id_text(&s.sample_id)),
                says: format!("{reducer} says {}", show(&s.value)),
            });
        }
    }
    if !reducers.is_empty() {
        notes.push(format!(
            "the log's reduced scores ({} over epochs) and results are ignored: gate grades every epoch",
            reducers.keys().cloned().collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(Log {
        trials,
        cancelled,
        cancelled_tests,
        notes,
        claims,
        run_ids,
    })
}

/// Refuse a log that says it succeeded and holds fewer (sample, epoch) records than it says
/// the eval ran: every sample of `dataset.sample_ids` in each of `config.epochs` epochs, and
/// `results.total_samples` in all. A log cut down by hand or by a tool (failing epochs or a
/// whole sample removed) would otherwise be judged on what is left (review 7, c16).
fn check_complete(
    header: &Header,
    listed: Option<&Vec<serde_json::Value>>,
    samples: &[Sample],
) -> Result<(), Error> {
    let total = header
        .results
        .as_ref()
        .and_then(|r| r.total_samples.as_ref())
        .and_then(serde_json::Value::as_u64);
    if let Some(total) = total
        && total > samples.len() as u64
    {
        return Err(Error::Refused(format!(
            "the log's status is `success` and its results count {total} (sample, epoch) records \
             (`results.total_samples`), but it holds {}: records were removed from it, and judging the \
             rest could turn a failure into a pass. Give the log as `inspect eval` wrote it",
            samples.len()
        )));
    }
    let epochs = header
        .eval
        .config
        .as_ref()
        .and_then(|c| c.epochs.as_ref())
        .and_then(serde_json::Value::as_u64);
    let (Some(epochs), Some(listed)) = (epochs, listed) else {
        return Ok(());
    };
    // Per listed sample, its records in epochs 1..=epochs (duplicates are refused later).
    let mut have: HashMap<String, u64> = listed.iter().map(|id| (id_text(id), 0)).collect();
    for s in samples {
        if (1..=epochs).contains(&s.epoch.0)
            && let Some(n) = have.get_mut(&id_text(&s.id))
        {
            *n += 1;
        }
    }
    let mut short: Vec<(String, u64)> = listed
        .iter()
        .map(id_text)
        .filter_map(|id| {
            let n = have.get(&id).copied().unwrap_or(0);
            (n < epochs).then(|| (id, epochs - n))
        })
        .collect();
    short.dedup();
    if short.is_empty() {
        return Ok(());
    }
    let missing: u64 = short.iter().map(|(_, n)| *n).sum();
    let named: Vec<String> = short
        .iter()
        .take(5)
        .map(|(id, n)| format!("`{}` lacks {n}", crate::untrusted::one_line(id)))
        .collect();
    Err(Error::Refused(format!(
        "the log's status is `success` with {epochs} epoch(s) of {} sample(s) (`eval.config.epochs`, \
         `eval.dataset.sample_ids`), but {missing} (sample, epoch) record(s) are missing ({}{}): records \
         were removed from it, and judging the rest could turn a failure into a pass. Give the log as \
         `inspect eval` wrote it",
        listed.len(),
        named.join(", "),
        if short.len() > 5 { ", …" } else { "" }
    )))
}

/// Refuse a log whose header's `accuracy` for the graded scorer is not what its (sample,
/// epoch) records give. Inspect computes it from the records it logged: each sample's epochs
/// reduced (`mean` by default, or the score's `reducer`), then the mean over samples, every
/// value read as [`value_to_float`] reads it. A log whose failing epochs were rewritten to C
/// in its records but not in its header said, for instance, 0.72 over records that give 1.0
/// (review 49, c02). Compared only where gate computes what Inspect did: the `accuracy`
/// metric (Inspect's `accuracy()`; other metrics, such as `mean` over NaN values, follow
/// rules gate does not repeat), the `mean` and `max` reducers, and only when every record
/// has a numeric value for the scorer (Inspect leaves unscored samples out, which gate
/// cannot tell from the header). So under `max` a sample with one passing epoch reads 1.0
/// whatever its other epochs say, and the header cannot show their rewriting; the journal
/// ([`check_journal`]) still does. `results.total_samples` is held to the records by
/// [`check_complete`]; `completed_samples` is not compared (every real log gate was read
/// against has it equal to the total, and what it counts for an errored sample is not shown).
fn check_metrics(
    header: &Header,
    samples: &[Sample],
    scorer: &str,
    results_at: &str,
) -> Result<(), Error> {
    let Some(results) = header.results.as_ref() else {
        return Ok(());
    };
    // Per sample, its values in record order; any record without a number ends the check.
    let mut per_sample: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for s in samples {
        let Some(x) = s
            .scores
            .as_ref()
            .and_then(|m| m.get(scorer))
            .and_then(|v| value_to_float(&v.value))
        else {
            return Ok(());
        };
        per_sample.entry(id_text(&s.id)).or_default().push(x);
    }
    if per_sample.is_empty() {
        return Ok(());
    }
    // The reducers asked for when a score names none: Inspect's default is `mean`.
    let asked: Option<Vec<String>> = header
        .eval
        .config
        .as_ref()
        .and_then(|c| c.epochs_reducer.as_ref())
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|r| r.as_str().map(str::to_string))
                .collect()
        });
    for score in &results.scores {
        if score.scorer.as_deref() != Some(scorer)
            || score.name.as_deref().is_some_and(|n| n != scorer)
        {
            continue;
        }
        let Some(stated) = score
            .metrics
            .as_ref()
            .and_then(|m| m.accuracy.as_ref())
            .and_then(|a| a.value.as_f64())
        else {
            continue;
        };
        let reducer = match (&score.reducer, &asked) {
            (Some(r), _) => r.clone(),
            (None, None) => "mean".to_string(),
            (None, Some(a)) if a.iter().all(|r| r == "mean") => "mean".to_string(),
            // A score without its reducer beside others asked for: which one made it is
            // not said.
            (None, Some(_)) => continue,
        };
        let reduce: fn(&[f64]) -> f64 = match reducer.as_str() {
            "mean" => |v| v.iter().sum::<f64>() / v.len() as f64,
            "max" => |v| v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            _ => continue,
        };
        let computed =
            per_sample.values().map(|v| reduce(v)).sum::<f64>() / per_sample.len() as f64;
        // Inspect sums in another order (numpy): a difference at the last digits is not a
        // rewritten record, one record of a million is 1e-6.
        if (computed - stated).abs() > 1e-9 {
            return Err(Error::Refused(format!(
                "{results_at} says the `{}` scorer's accuracy ({reducer} over each sample's epochs, then over \
                 samples) is {stated}, but the log's {} (sample, epoch) records give {computed}: the records \
                 were edited after the run, and gate will not grade them. Give the log as `inspect eval` wrote it",
                crate::untrusted::one_line(scorer),
                samples.len()
            )));
        }
    }
    Ok(())
}

/// A score value for a message: `C`, `0.5`, `true`.
fn show(v: &serde_json::Value) -> String {
    match v {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            if x.fract() == 0.0 {
                format!("{x:.0}")
            } else {
                format!("{:.3}", x).trim_end_matches('0').to_string()
            }
        }
        other => other.to_string(),
    }
}

/// `a`, `b`, `c` in backticks.
fn list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ZIP of `(name, method, data)` members written by hand (CRC 0: gate reads members raw
    /// and never checks it), so a test can hold what no honest writer makes.
    fn zip_of(members: &[(&str, u16, &[u8], u32)]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut central = Vec::new();
        for (name, method, data, size) in members {
            let offset = out.len() as u32;
            let header = |sig: u32, central: bool| {
                let mut h = Vec::new();
                h.extend(sig.to_le_bytes());
                if central {
                    h.extend(20u16.to_le_bytes()); // made by
                }
                h.extend(20u16.to_le_bytes()); // version needed
                h.extend(0u16.to_le_bytes()); // flags
                h.extend(method.to_le_bytes());
                h.extend([0u8; 4]); // time, date
                h.extend(0u32.to_le_bytes()); // crc
                h.extend((data.len() as u32).to_le_bytes());
                h.extend(size.to_le_bytes());
                h.extend((name.len() as u16).to_le_bytes());
                h.extend(0u16.to_le_bytes()); // extra
                if central {
                    h.extend([0u8; 6]); // comment len, disk, internal attrs
                    h.extend(0u32.to_le_bytes()); // external attrs
                    h.extend(offset.to_le_bytes());
                }
                h.extend(name.as_bytes());
                h
            };
            out.extend(header(0x0403_4b50, false));
            out.extend_from_slice(data);
            central.extend(header(0x0201_4b50, true));
        }
        let cd_offset = out.len() as u32;
        let cd_len = central.len() as u32;
        out.extend(central);
        out.extend(0x0605_4b50u32.to_le_bytes());
        out.extend([0u8; 4]);
        out.extend((members.len() as u16).to_le_bytes());
        out.extend((members.len() as u16).to_le_bytes());
        out.extend(cd_len.to_le_bytes());
        out.extend(cd_offset.to_le_bytes());
        out.extend(0u16.to_le_bytes());
        out
    }

    #[test]
    fn a_zip_bomb_member_is_refused_at_the_cap() {
        // 65 MiB of spaces after a JSON opening: a few KiB compressed.
        let mut big = b"{\"status\": \"success\", \"eval\": {}".to_vec();
        big.resize((MAX_MEMBER_BYTES + (1 << 20)) as usize, b' ');
        let packed = ruzstd::encoding::compress_to_vec(
            &big[..],
            ruzstd::encoding::CompressionLevel::Fastest,
        );
        assert!(packed.len() < 1 << 20, "{} bytes", packed.len());
        let zip = zip_of(&[("header.json", 93, &packed, big.len() as u32)]);
        let e = match read(&zip, &Options::default()) {
            Err(Error::Parse(e)) => e,
            Err(Error::Refused(r)) => panic!("{r}"),
            Ok(_) => panic!("a bomb is read"),
        };
        assert!(e.reason.contains("zip bomb"), "{}", e.reason);
    }

    #[test]
    fn a_stored_member_reads_and_an_unknown_method_is_named() {
        let header = br#"{"status": "success", "eval": {"task": "t", "scorers": [{"name": "s"}]}}"#;
        let summaries = br#"[{"id": "a", "epoch": 1, "scores": {"s": {"value": "C"}}}]"#;
        let zip = zip_of(&[
            ("header.json", 0, header, header.len() as u32),
            ("summaries.json", 0, summaries, summaries.len() as u32),
        ]);
        let log = match read(&zip, &Options::default()) {
            Ok(log) => log,
            Err(Error::Parse(e)) => panic!("{}", e.reason),
            Err(Error::Refused(r)) => panic!("{r}"),
        };
        assert_eq!(log.trials.len(), 1);
        assert!(log.trials[0].attempts[0].passed);
        let zip = zip_of(&[("header.json", 12, header, header.len() as u32)]);
        let Err(Error::Parse(e)) = read(&zip, &Options::default()) else {
            panic!("refused");
        };
        assert!(e.reason.contains("inspect log convert"), "{}", e.reason);
    }

    #[test]
    fn score_values_read_as_inspect_reads_them() {
        use serde_json::json;
        assert_eq!(value_to_float(&json!("C")), Some(1.0));
        assert_eq!(value_to_float(&json!("P")), Some(0.5));
        assert_eq!(value_to_float(&json!("I")), Some(0.0));
        assert_eq!(value_to_float(&json!(true)), Some(1.0));
        assert_eq!(value_to_float(&json!(0.75)), Some(0.75));
        assert_eq!(value_to_float(&json!({"a": 1})), None);
    }
}
