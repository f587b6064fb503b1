//! Evidence identity below the file: the units a run's evidence is made of, compared across
//! every file of one ingest (base and head) and inside each.
//!
//! [`super::check_distinct`] compares whole files (bytes, run ids, all records together), so a
//! superset or a subset of a run's file was a new identity: one run padded with an extra
//! `<testsuite>`, or a `go test -json` stream given again with a cut-off tail of itself, counted
//! twice. Here each piece that one run of the suite writes once is an identity unit of its own:
//! - a JUnit `<testsuite>` (its name, `hostname`, its test cases' records, and the timestamps
//!   it and they carry); the test cases outside any `<testsuite>` are one more;
//! - one test run of a `go test -json` stream (its test, outcome, elapsed time and output, and
//!   the `Time` of its `run` event, which has nanoseconds; a run without one is no unit).
//!
//! Two units with the same records are the same run when they carry the same timestamps, or
//! when one carries timestamps and the other none (a copy re-saved by a tool that drops them:
//! the writer that stamped one run stamps every run). Two units with the same records and no
//! timestamp at all are **not** refused: a deterministic suite gives equal outcomes, and
//! whole-millisecond durations repeat, so nothing in such files tells one run saved twice
//! from two runs (docs/ingest.md, "Evidence has an identity", says so).

use std::collections::HashMap;
use std::path::PathBuf;

use sha2::Digest as _;

use super::junit::Document;
use super::{IngestError, RunFile, Trial};

/// One piece of a run's evidence that the run writes once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Where it is in its file, for a message (no text from the file: it may hold a secret).
    pub place: String,
    /// Digest of its records, without timestamps.
    pub records: String,
    /// The timestamps it carries, joined; `None` when it carries none.
    pub stamp: Option<String>,
}

/// A hasher over length-prefixed fields: no two different field lists hash alike.
struct Fields(sha2::Sha256);

impl Fields {
    fn new() -> Self {
        Fields(sha2::Sha256::new())
    }

    fn add(&mut self, b: &[u8]) {
        self.0.update((b.len() as u64).to_le_bytes());
        self.0.update(b);
    }

    fn hex(self) -> String {
        self.0
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }
}

/// The units of a JUnit document: each `<testsuite>` with its test cases, and the test cases
/// outside any (under a root `<testsuite>`) as one more. Empty suites are no evidence.
pub fn junit_units(doc: &Document) -> Vec<Unit> {
    // Slot 0: cases outside every suite; slot i: the suite at doc.suites[i - 1].
    let mut slots: Vec<(Fields, Vec<String>, usize)> = (0..=doc.suites.len())
        .map(|_| (Fields::new(), Vec::new(), 0))
        .collect();
    for (i, s) in doc.suites.iter().enumerate() {
        let slot = &mut slots[i + 1];
        slot.0.add(s.name.as_bytes());
        // The machine is part of the records: two runs on two runners differ by it, and a copy
        // re-saved without its timestamp keeps it.
        slot.0.add(s.hostname.as_deref().unwrap_or("").as_bytes());
        slot.1.extend(s.stamp.iter().cloned());
    }
    slots[0]
        .0
        .add(doc.root_name.as_deref().unwrap_or("").as_bytes());
    slots[0].1.extend(doc.stamp.iter().cloned());
    // Each record's own digest, per slot, hashed into the slot sorted: a copy whose records a
    // merger reordered (junitparser, junit-merge sort them) is the same unit (review 7, c20).
    // A digest a record keeps that to 32 bytes each.
    let mut records: Vec<Vec<[u8; 32]>> = vec![Vec::new(); slots.len()];
    for c in &doc.cases {
        let Some(slot) = slots.get_mut(c.suite) else {
            continue;
        };
        // Everything the record says but where it is and when: the stamp is compared apart.
        let mut rec = c.clone();
        rec.line = 0;
        rec.suite = 0;
        let stamp = rec.stamp.take();
        records[c.suite].push(sha2::Sha256::digest(format!("{rec:?}").as_bytes()).into());
        slot.1.extend(stamp);
        slot.2 += 1;
    }
    for (slot, mut digests) in slots.iter_mut().zip(records) {
        digests.sort_unstable();
        for d in &digests {
            slot.0.add(d);
        }
        // Stamps compared as a set too: a sorting merger moves them with their records.
        slot.1.sort_unstable();
    }
    slots
        .into_iter()
        .enumerate()
        .filter(|(_, (_, _, cases))| *cases > 0)
        .map(|(i, (h, stamps, _))| Unit {
            place: match i {
                0 => "the test cases outside any `<testsuite>`".to_string(),
                i => format!("the `<testsuite>` at line {}", doc.suites[i - 1].line),
            },
            records: h.hex(),
            stamp: (!stamps.is_empty()).then(|| stamps.join("\u{1f}")),
        })
        .collect()
}

/// The units of a `go test -json` stream: each test run, stamped with its `run` event's
/// `Time`. `starts[i]` is the line and `Time` of `trials[i]`'s `run` event. A run without a
/// `Time` (no stream `go test` writes) is no unit: a passing test's records are only its id
/// and elapsed time, which repeat.
pub fn go_units(trials: &[Trial], starts: &[(u64, Option<String>)]) -> Vec<Unit> {
    trials
        .iter()
        .zip(starts)
        // A skipped run (no attempts: [`super::settle_skipped_repeats`] decides what it is)
        // records no outcome to compare, as before skips were kept in place.
        .filter(|(t, _)| !t.attempts.is_empty())
        .filter_map(|(t, (line, time))| Some((t, line, time.as_ref()?)))
        .map(|(t, line, time)| {
            let mut h = Fields::new();
            h.add(t.test.as_bytes());
            for a in &t.attempts {
                h.add(&[a.passed as u8, a.unavailable as u8]);
                h.add(&a.duration_s.to_bits().to_le_bytes());
                h.add(a.message.as_bytes());
                h.add(a.detail.as_bytes());
            }
            Unit {
                place: format!("the test run that starts at line {line}"),
                records: h.hex(),
                stamp: Some(time.clone()),
            }
        })
        .collect()
}

/// A unit already read: its file, its place in the file, its stamp.
type Seen<'r> = (&'r PathBuf, &'r str, Option<&'r str>);

/// Refuse one unit of evidence given twice, in two files or in one, naming both places.
pub fn check_units<'r>(runs: impl IntoIterator<Item = &'r RunFile>) -> Result<(), IngestError> {
    // Records digest → every unit with those records so far.
    let mut seen: HashMap<&str, Vec<Seen<'_>>> = HashMap::new();
    for run in runs {
        for u in &run.identity.units {
            let stamp = u.stamp.as_deref();
            let earlier = seen.entry(u.records.as_str()).or_default();
            let same = earlier.iter().find(|(_, _, s)| match (s, stamp) {
                (Some(a), Some(b)) => a == &b,
                (None, None) => false,
                _ => true,
            });
            if let Some((path, place, s)) = same {
                let how = if s.is_some() == stamp.is_some() {
                    "the same records with the same timestamps"
                } else {
                    "the same records, once with timestamps and once without them, as in a copy re-saved \
                     by a tool that drops them"
                };
                if *path == &run.path {
                    return Err(IngestError::Refused {
                        path: run.path.clone(),
                        reason: format!(
                            "{} is {place} again, with {how}: one run's evidence written twice, which \
                             would count as two runs. Give each run once (docs/ingest.md, \"Evidence has \
                             an identity\")",
                            u.place
                        ),
                    });
                }
                return Err(IngestError::SameRun {
                    first: (*path).clone(),
                    second: run.path.clone(),
                    why: format!("{place} of the first is {} of the second: {how}", u.place),
                });
            }
            earlier.push((&run.path, u.place.as_str(), stamp));
        }
    }
    Ok(())
}

/// What one run's result file is as evidence, kept for each run of a suite task (one side of
/// a `compare:` suite) so that a later run can be compared with it without keeping its
/// records: its bytes' SHA-256, the run ids the tool recorded, the digest of its records with
/// their timestamps ([`super::records_digest`]) and its units.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    /// Hex SHA-256 of the file's bytes.
    pub sha256: String,
    /// The run ids the tool recorded ([`super::Identity::run_ids`]).
    pub run_ids: Vec<String>,
    /// The records with their timestamps, in any order; `None` without timestamps.
    pub records: Option<String>,
    /// The pieces the run writes once ([`Unit`]).
    pub units: Vec<Unit>,
}

impl Fingerprint {
    /// The fingerprint of `run`.
    pub fn of(run: &RunFile) -> Self {
        Fingerprint {
            sha256: run.sha256.clone(),
            run_ids: run.identity.run_ids.clone(),
            records: super::records_digest(run),
            units: run.identity.units.clone(),
        }
    }

    /// How this run's evidence is `earlier`'s again (one sentence), or `None` when it is a
    /// run of its own. The same tests as [`super::check_distinct`] between two files: the
    /// same bytes (whatever they hold: a byte-for-byte copy is never a second execution one
    /// can tell from a replay), a run id in common, the same timestamped records, or a unit
    /// of the one that is a unit of the other.
    ///
    /// `fresh`: gate saw this run's command write the file (a suite run of `gate run`, whose
    /// result path gate cleared first). Then the same bytes are a replay only in a file that
    /// records a timestamp or a run id: without either, an honest deterministic suite writes
    /// the same bytes every run (review 8, a03, a14), and only gate's having seen the file
    /// written tells its runs apart. A file given after the fact (`gate ingest`) has no such
    /// witness, and [`super::check_distinct`] refuses the same bytes whatever they hold.
    pub fn replays(&self, earlier: &Fingerprint, fresh: bool) -> Option<String> {
        let says_which_run = self.records.is_some() || !self.run_ids.is_empty();
        if self.sha256 == earlier.sha256 && (says_which_run || !fresh) {
            return Some(format!(
                "the two files are the same, byte for byte (SHA-256 {})",
                &self.sha256[..self.sha256.len().min(12)]
            ));
        }
        if let Some(id) = self.run_ids.iter().find(|id| earlier.run_ids.contains(id)) {
            return Some(format!(
                "both record the same run ({})",
                crate::untrusted::one_line(id)
            ));
        }
        if self.records.is_some() && self.records == earlier.records {
            return Some(
                "their records are the same, test by test, with the same timestamps and durations"
                    .into(),
            );
        }
        for u in &self.units {
            let same = earlier.units.iter().find(|v| {
                v.records == u.records
                    && match (&u.stamp, &v.stamp) {
                        (Some(a), Some(b)) => a == b,
                        (None, None) => false,
                        _ => true,
                    }
            });
            if let Some(v) = same {
                return Some(format!(
                    "{} holds the same records with the same timestamps as {} of the earlier file",
                    u.place, v.place
                ));
            }
        }
        None
    }
}
