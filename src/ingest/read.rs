//! One result file → its trials: bounded reading, format detection, and the reader for the
//! format (promptfoo's `results.json` and `.jsonl` streamed, every other file read whole and
//! hashed).

use std::io::Read;
use std::path::{Path, PathBuf};

use super::{
    Format, IngestError, MAX_COUNT, MAX_FILE_BYTES, Options, ParseError, RunFile, Writer, deepeval,
    detect, gotest, inspect, js, junit, promptfoo,
};
use crate::ledger::sha256_hex;

/// Read every file of `paths` in order ([`read_run`]), every string it gives passed through
/// `redact` as it is read.
pub fn read_runs(
    paths: &[PathBuf],
    opts: &Options,
    redact: &dyn Fn(&str) -> String,
) -> Result<Vec<RunFile>, IngestError> {
    let read = |path: &PathBuf| {
        let mut run = read_run(path, opts)?;
        run.redact(redact);
        Ok(run)
    };
    paths.iter().map(read).collect()
}

/// Read and interpret one result file, in the format given or detected.
pub fn read_run(path: &Path, opts: &Options) -> Result<RunFile, IngestError> {
    if matches!(opts.format, None | Some(Format::Promptfoo))
        && let Some(run) = stream_promptfoo(path, opts)?
    {
        return bounded(run);
    }
    let whole = read_bounded(path)?;
    let sha256 = sha256_hex(&whole);
    // One leading UTF-8 BOM (Windows PowerShell's `Out-File -Encoding utf8`, Notepad) is a
    // re-saving, not content: left out here, once, before detection and every reader, none
    // of which expects it before a JSON value (review 47, h01). The hash is of the bytes as
    // read; a copy differing only by its BOM is still the same run ([`super::check_distinct`]
    // compares parsed records).
    let bytes = whole.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&whole);
    let (format, detected) = match opts.format {
        Some(f) => (f, false),
        None => (
            detect(bytes).ok_or_else(|| IngestError::Unrecognised {
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
        Format::Junit => super::junit_trials::read_junit(path, bytes, opts)?,
        Format::GoJson => {
            let text = utf8(path, bytes)?;
            let go = gotest::read(text).map_err(invalid)?;
            let units = super::identity::go_units(&go.trials, &go.starts);
            let mut notes = Vec::new();
            if go.reruns > 0 {
                notes.push(format!(
                    "{} test run(s) after their package's first `go test` ended (gotestsum `--rerun-fails`) \
                     are reruns, not first attempts, and were left out",
                    go.reruns
                ));
            }
            RunFile {
                skipped: go.skipped,
                skipped_tests: go.skipped_tests,
                notes,
                identity: super::Identity {
                    run_ids: go
                        .first_time
                        .iter()
                        .map(|t| format!("`go test -json` stream whose first event is at {t}"))
                        .collect(),
                    stamps: go.first_time.iter().cloned().collect(),
                    units,
                },
                ..RunFile::new(path, Writer::GoTest, format, go.trials)
            }
        }
        Format::Promptfoo => {
            let text = utf8(path, bytes)?;
            let pf = promptfoo::read(text, opts).map_err(|e| match e {
                promptfoo::Error::Parse(e) => invalid(e),
                promptfoo::Error::Refused(r) => refused(r),
            })?;
            RunFile {
                notes: pf.notes,
                json_ids: pf.json_ids,
                identity: pf.identity,
                ..RunFile::new(path, Writer::Promptfoo, format, pf.trials)
            }
        }
        Format::Deepeval => {
            let text = utf8(path, bytes)?;
            let de = deepeval::read(text).map_err(invalid)?;
            RunFile {
                skipped: de.skipped,
                skipped_tests: de.skipped_tests,
                notes: de.notes,
                ..RunFile::new(path, Writer::Deepeval, format, de.trials)
            }
        }
        Format::Inspect => {
            let log = inspect::read(bytes, opts).map_err(|e| match e {
                inspect::Error::Parse(e) => invalid(e),
                inspect::Error::Refused(r) => refused(r),
            })?;
            RunFile {
                skipped: log.cancelled,
                skipped_tests: log.cancelled_tests,
                notes: log.notes,
                claims: log.claims,
                identity: super::Identity {
                    run_ids: log.run_ids,
                    ..Default::default()
                },
                ..RunFile::new(path, Writer::Inspect, format, log.trials)
            }
        }
        Format::PlaywrightJson | Format::MochaJson | Format::JestJson => {
            let text = utf8(path, bytes)?;
            let read = match format {
                Format::PlaywrightJson => {
                    js::playwright::read(text).map(|r| (r, Writer::PlaywrightJson))
                }
                Format::MochaJson => js::mocha::read(text).map(|r| (r, Writer::MochaJson)),
                _ => js::jest::read(text),
            };
            let (report, writer) = read.map_err(|e| match e {
                js::Error::Parse(e) => invalid(e),
                js::Error::Refused(r) => refused(r),
            })?;
            RunFile {
                skipped: report.skipped,
                skipped_tests: report.skipped_tests,
                notes: report.notes,
                identity: super::Identity {
                    run_ids: Vec::new(),
                    stamps: report.stamps,
                    units: Vec::new(),
                },
                ..RunFile::new(path, writer, format, report.trials)
            }
        }
    };
    run.sha256 = sha256;
    run.format = format;
    run.detected = detected;
    super::settle_skipped_repeats(&mut run);
    bounded(run)
}

/// The run, if no trial holds more than [`MAX_COUNT`] attempts after its first: the bound on
/// retries holds whether a reader took it from a count (checked by [`super::Count`] before
/// anything was allocated) or from a list of records (whose size the file's own cap bounds).
fn bounded(run: RunFile) -> Result<RunFile, IngestError> {
    if let Some(t) = run
        .trials
        .iter()
        .find(|t| t.attempts.len() as u64 > MAX_COUNT + 1)
    {
        return Err(IngestError::Refused {
            path: run.path.clone(),
            reason: format!(
                "test `{}` has {} attempts in one trial: more than the {MAX_COUNT} retries gate reads from a \
                 result file (docs/ingest.md)",
                crate::untrusted::one_line(&t.test),
                t.attempts.len()
            ),
        });
    }
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

/// promptfoo's `results.json` or `.jsonl`, streamed (hashed as it is read, within
/// [`MAX_FILE_BYTES`]) when its first bytes say it is one; `None` for any other file, which is then read whole. Its
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
    let (file, _) = open_bounded(path)?;
    // The hasher sits under the buffer: it sees every byte once, a block at a time.
    let mut reader = std::io::BufReader::with_capacity(
        64 << 10,
        Hashing {
            inner: file.take(MAX_FILE_BYTES + 1),
            hash: sha2::Sha256::new(),
            len: 0,
        },
    );
    let head = reader.fill_buf().map_err(io)?;
    let pf = if promptfoo::starts_results_json(head) {
        promptfoo::read_stream(&mut reader, opts)
    } else if promptfoo::starts_jsonl(head) {
        promptfoo::read_jsonl_stream(&mut reader, opts)
    } else {
        return Ok(None);
    };
    // What the reader left unread (after a parse error) is part of the file and of its hash.
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
        sha256,
        detected: opts.format.is_none(),
        notes: pf.notes,
        json_ids: pf.json_ids,
        identity: pf.identity,
        ..RunFile::new(path, Writer::Promptfoo, Format::Promptfoo, pf.trials)
    }))
}

/// Open a regular file of at most [`MAX_FILE_BYTES`]; its length when opened.
fn open_bounded(path: &Path) -> Result<(std::fs::File, u64), IngestError> {
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
    Ok((file, meta.len()))
}

/// Read a regular file of at most [`MAX_FILE_BYTES`].
fn read_bounded(path: &Path) -> Result<Vec<u8>, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let (file, len) = open_bounded(path)?;
    // The length can change between stat and read: read one byte past the cap to notice.
    let mut bytes = Vec::with_capacity(len as usize);
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
