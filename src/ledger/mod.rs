//! The append-only attempt ledger: JSON Lines, one row per attempt, decision, header and footer.
//!
//! Every report is a view of this file (invariant 4), so it records everything a report needs:
//! the resolved sampling rule and policy of each task in the header, every attempt as it ends,
//! a decision row per task and a footer. Each row carries `seq` and the SHA-256 of the previous
//! line (`prev`), so an edited, dropped or reordered row breaks the chain and `gate verify`
//! names it. `gate run` writes each row with one `write` (invariant 5), so a crash of gate
//! loses at most the row being written, and the reader treats an unterminated last line as
//! that lost row. When a row is `fdatasync`ed is the caller's choice: [`LedgerWriter::append`]
//! syncs before it returns (header, decision and footer rows); `gate run` writes attempt rows,
//! and the decision rows of a suite's test cases (thousands at once), with
//! [`LedgerWriter::append_unsynced`] and syncs them from a thread in batches
//! (`runner/session.rs`, `Syncer`); `gate ingest` writes all its rows with
//! [`LedgerWriter::append_all`] and syncs once.
//!
//! The format is versioned by [`SCHEMA_VERSION`]; bump it on purpose when a row changes shape.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use sha2::{Digest, Sha256};

mod rows;
pub use rows::*;

/// Version of the ledger format written by this build. Schema 2 added the box's walls
/// (`sandbox`) to the header and the resume rows; schema 3 added suite tasks (a header task
/// with `suite`, whose test cases are tasks of their own, see [`SuiteRecord`]). Older
/// ledgers read, replay and verify as before (they hold no box and no suite).
pub const SCHEMA_VERSION: u32 = 3;

/// The schema a ledger of these tasks is written with: 3 where a suite task needs it, else
/// 2, so a ledger without a suite reads in a gate that predates them (and hashes as before).
pub fn schema_for(tasks: &[TaskSpec]) -> u32 {
    if tasks.iter().any(|t| t.suite.is_some()) {
        SCHEMA_VERSION
    } else {
        2
    }
}

/// The oldest ledger format this build reads.
pub const MIN_SCHEMA_VERSION: u32 = 1;

/// Largest ledger read, in bytes (a 20,000-trial run writes about 20 MB).
pub const MAX_LEDGER_BYTES: u64 = 1 << 30;
/// Longest ledger row read, in bytes. Task text in an attempt row is clipped far below
/// this; the header, which holds every task's commands, is bounded by the plan file's own
/// size cap (4 MiB) even with JSON escaping.
pub const MAX_ROW_BYTES: u64 = 32 << 20;

/// `prev` of the first row: there is no previous line.
pub const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Errors reading or writing a ledger.
#[derive(Debug, thiserror::Error)]
pub enum LedgerError {
    /// The file could not be opened, read or written.
    #[error("{path}: cannot read or write the ledger")]
    Io {
        /// The ledger.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a ledger row.
    #[error("{path}:{line}:{column}: not a ledger row: {message}")]
    Parse {
        /// The ledger.
        path: PathBuf,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// What serde said.
        message: String,
    },
    /// The file has no header row.
    #[error("{path}: empty ledger (no header row)")]
    Empty {
        /// The ledger.
        path: PathBuf,
    },
    /// A row of a format this build does not read.
    #[error(
        "{path}:1:1: ledger schema {found} is not supported (this gate reads schemas {MIN_SCHEMA_VERSION} to {SCHEMA_VERSION})"
    )]
    Schema {
        /// The ledger.
        path: PathBuf,
        /// The schema found.
        found: u32,
    },
}

/// Hex SHA-256 of some bytes.
pub fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest.iter() {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Appends rows: one `write` each, synced before [`LedgerWriter::append`] returns or later by
/// the caller ([`LedgerWriter::append_unsynced`]); or buffered and synced once at the end
/// ([`LedgerWriter::append_all`]).
#[derive(Debug)]
pub struct LedgerWriter {
    path: PathBuf,
    file: File,
    seq: u64,
    prev: String,
    /// Bytes this writer knows the file to hold: what it found plus what it wrote.
    len: u64,
}

impl LedgerWriter {
    /// Create a new ledger. A ledger already at `path` is never overwritten: it is renamed
    /// to `PATH.1` (or the first free `PATH.N`), which is returned so the caller can say so.
    pub fn create(path: &Path) -> Result<(Self, Option<PathBuf>), LedgerError> {
        let io = |source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        };
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut kept = None;
        if path.is_dir() {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::IsADirectory,
                "is a directory",
            )));
        }
        if path.metadata().is_ok_and(|m| m.len() > 0) {
            let free = (1u32..)
                .map(|n| {
                    let mut name = path.as_os_str().to_owned();
                    name.push(format!(".{n}"));
                    PathBuf::from(name)
                })
                .find(|p| !p.exists())
                .unwrap_or_else(|| path.with_extension("old"));
            std::fs::rename(path, &free).map_err(io)?;
            kept = Some(free);
        }
        // An empty file at the path holds nothing to keep; anything else was moved aside.
        // Readable too: the run reads its rows back through this descriptor (never by path).
        // Append mode: every row lands at the end whatever the read-back did to the offset.
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        file.set_len(0).map_err(io)?;
        Ok((
            LedgerWriter {
                path: path.to_path_buf(),
                file,
                seq: 0,
                prev: GENESIS.to_string(),
                len: 0,
            },
            kept,
        ))
    }

    /// Continue an existing ledger after its last complete row. An unterminated last line
    /// (the row being written when the process died) is cut off first: it was never a row.
    pub fn resume(path: &Path, ledger: &Ledger) -> Result<Self, LedgerError> {
        let io = |source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        };
        // Append mode writes at the end, after the cut.
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        file.set_len(ledger.complete_len).map_err(io)?;
        Ok(LedgerWriter {
            path: path.to_path_buf(),
            file,
            seq: ledger.records.len() as u64,
            prev: ledger.last_hash.clone(),
            len: ledger.complete_len,
        })
    }

    /// Append one row, flushed and synced.
    pub fn append(&mut self, row: Row) -> Result<Record, LedgerError> {
        let record = self.append_unsynced(row)?;
        self.sync()?;
        Ok(record)
    }

    /// Append one row with one `write`, leaving its sync to the caller ([`Self::sync`], or
    /// a sync of another descriptor of the file: `gate run` syncs attempt rows on a thread
    /// of their own). Once this returns the row is in the file: a crash of gate loses
    /// nothing written, only a crash of the machine loses what was not yet synced.
    pub fn append_unsynced(&mut self, row: Row) -> Result<Record, LedgerError> {
        let record = Record {
            seq: self.seq,
            prev: std::mem::take(&mut self.prev),
            row,
        };
        let line = serde_json::to_string(&record).expect("ledger rows always serialise");
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        let written = self.file.write_all(&buf);
        // The chain moves on only past a row that was written.
        self.prev = match written {
            Ok(()) => sha256_hex(line.as_bytes()),
            Err(_) => record.prev.clone(),
        };
        written.map_err(|source| LedgerError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.seq += 1;
        self.len += buf.len() as u64;
        Ok(record)
    }

    /// Sync what was written (`fdatasync`).
    pub fn sync(&self) -> Result<(), LedgerError> {
        self.file.sync_data().map_err(|source| LedgerError::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// Append many rows and sync once at the end. For `gate ingest`, whose rows are derived
    /// from input files that stay on disk: a crash mid-way loses nothing that cannot be
    /// derived again, and one sync per row would cost seconds on a large suite.
    pub fn append_all(&mut self, rows: impl IntoIterator<Item = Row>) -> Result<(), LedgerError> {
        let mut out = std::io::BufWriter::with_capacity(1 << 16, &self.file);
        let mut written = 0u64;
        for row in rows {
            let record = Record {
                seq: self.seq,
                prev: std::mem::take(&mut self.prev),
                row,
            };
            let line = serde_json::to_string(&record).expect("ledger rows always serialise");
            let result = out
                .write_all(line.as_bytes())
                .and_then(|()| out.write_all(b"\n"));
            result.map_err(|source| LedgerError::Io {
                path: self.path.clone(),
                source,
            })?;
            self.prev = sha256_hex(line.as_bytes());
            self.seq += 1;
            written += line.len() as u64 + 1;
        }
        let io = |source| LedgerError::Io {
            path: self.path.clone(),
            source,
        };
        out.flush().map_err(io)?;
        drop(out);
        self.len += written;
        self.file.sync_data().map_err(io)
    }

    /// Hex SHA-256 of the last row written (the head of the hash chain), or [`GENESIS`].
    pub fn head(&self) -> &str {
        &self.prev
    }

    /// Bytes the file holds if nobody else touched it.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether no row has been written or found.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The open file this writer appends to.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Read every row back through this writer's own descriptor — never by path, which
    /// anyone could have pointed elsewhere — and check that they are exactly the rows it
    /// wrote: the same length, an intact chain, and the head hash it holds. Any difference
    /// is returned as [`Tampered`] naming it.
    pub fn read_back(&mut self) -> Result<Result<Ledger, Tampered>, LedgerError> {
        let io = |source| LedgerError::Io {
            path: self.path.clone(),
            source,
        };
        let on_disk = self.file.metadata().map_err(io)?.len();
        if on_disk != self.len {
            return Ok(Err(Tampered(format!(
                "it holds {on_disk} bytes where this run wrote {}",
                self.len
            ))));
        }
        self.file.seek(SeekFrom::Start(0)).map_err(io)?;
        let ledger = match Ledger::from_reader(&self.path, (&self.file).take(self.len)) {
            Ok(l) => l,
            Err(e) => return Ok(Err(Tampered(format!("it no longer parses: {e}")))),
        };
        if let Some((i, what)) = ledger.first_chain_break() {
            return Ok(Err(Tampered(format!("line {}: {what}", i + 1))));
        }
        if ledger.torn_tail.is_some() || ledger.last_hash != self.prev {
            return Ok(Err(Tampered(
                "its last row is not the last row this run wrote".to_string(),
            )));
        }
        Ok(Ok(ledger))
    }
}

/// How a ledger file differs from what its writer wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tampered(pub String);

impl std::fmt::Display for Tampered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl LedgerWriter {
    /// The ledger's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// A ledger read back.
#[derive(Debug, Clone)]
pub struct Ledger {
    /// Where it was read from.
    pub path: PathBuf,
    /// Every complete row, in file order. Each row's `prev` is checked against the chain as
    /// it is read ([`Ledger::first_chain_break`]) and kept only for the last row; the
    /// others' are empty.
    pub records: Vec<Record>,
    /// The first row whose `seq` or `prev` does not continue the chain, as (0-based index,
    /// what is wrong); found as the rows are read, so no hash per row is kept (a
    /// 20,000-row ledger held 2 MB of them).
    chain_break: Option<(usize, String)>,
    /// Hash of the last complete line (or [`GENESIS`]).
    pub last_hash: String,
    /// Byte length of the complete rows.
    pub complete_len: u64,
    /// An unterminated last line (a row lost in a crash), if any.
    pub torn_tail: Option<String>,
    /// Blank lines after the last row (an editor's or an `echo >>`'s newline): no row, and
    /// nothing the hash chain covers, so they are ignored, with a warning in `gate verify`
    /// (review 8, a26). A blank line between rows is refused.
    pub blank_tail: u64,
    /// Bytes of the last complete line, newline included (what [`Ledger::chain_covered`]
    /// takes off `complete_len` when it leaves that row out).
    last_line_len: u64,
    /// The 1-based line of the last row, left out by [`Ledger::chain_covered`] because no
    /// hash covered it; `None` when nothing was left out.
    pub left_out: Option<u64>,
}

impl Ledger {
    /// Read and parse every row. Parse errors name file:line:col. The hash chain is not
    /// checked here (that is `gate verify`'s job), so that reports can still be made from a
    /// ledger whose chain is broken; they say so.
    pub fn read(path: &Path) -> Result<Self, LedgerError> {
        let io = |source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        };
        // A FIFO or a device at the path is refused at once rather than read forever.
        let (file, len) = crate::input::open_regular(path).map_err(io)?;
        if len > MAX_LEDGER_BYTES {
            return Err(io(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("is {len} bytes; ledgers of at most {MAX_LEDGER_BYTES} bytes are read"),
            )));
        }
        Self::from_reader(path, file.take(MAX_LEDGER_BYTES))
    }

    /// [`Ledger::read`] from an open file (or any reader); `path` names it in errors.
    pub fn from_reader(path: &Path, file: impl Read) -> Result<Self, LedgerError> {
        let io = |source| LedgerError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut reader = BufReader::new(file);
        let mut records: Vec<Record> = Vec::new();
        let mut last_hash = GENESIS.to_string();
        let mut chain_break = None;
        let mut complete_len = 0u64;
        let mut torn_tail = None;
        let mut last_line_len = 0u64;
        let mut buf = Vec::new();
        let mut lineno = 0u64;
        // The first blank line since the last row, and how many there are.
        let mut blank: Option<u64> = None;
        let mut blank_tail = 0u64;
        loop {
            buf.clear();
            // One row is read up to a bound, so a line without end cannot take all memory.
            let n = (&mut reader)
                .take(MAX_ROW_BYTES + 1)
                .read_until(b'\n', &mut buf)
                .map_err(io)?;
            if n == 0 {
                break;
            }
            lineno += 1;
            if n as u64 > MAX_ROW_BYTES {
                return Err(LedgerError::Parse {
                    path: path.to_path_buf(),
                    line: lineno,
                    column: 1,
                    message: format!("row longer than {MAX_ROW_BYTES} bytes"),
                });
            }
            // A blank line is no row: accepted after the last row only (review 8, a26).
            if buf.iter().all(u8::is_ascii_whitespace) {
                blank.get_or_insert(lineno);
                blank_tail += 1;
                continue;
            }
            if let Some(at) = blank {
                return Err(LedgerError::Parse {
                    path: path.to_path_buf(),
                    line: at,
                    column: 1,
                    message: "a blank line between rows: gate writes none, so the ledger was edited \
                              after it was written; remove the blank line and run `gate verify` again \
                              (blank lines after the last row are ignored)"
                        .into(),
                });
            }
            if buf.last() != Some(&b'\n') {
                torn_tail = Some(String::from_utf8_lossy(&buf).into_owned());
                break;
            }
            let line = &buf[..buf.len() - 1];
            // A row's JSON never holds a raw CR: one at the end is a line end converted to
            // CR LF after gate wrote it (git `core.autocrlf`, an editor). The hash chain covers
            // each row's exact bytes, so it would read as tampering: said as what it is.
            if line.last() == Some(&b'\r') {
                return Err(LedgerError::Parse {
                    path: path.to_path_buf(),
                    line: lineno,
                    column: line.len() as u64,
                    message: "the line ends in CR LF (`\\r\\n`), but gate writes LF (`\\n`): the ledger's \
                              line ends were converted after it was written (git `core.autocrlf`, an editor), \
                              and its hash chain covers each row's exact bytes. Restore LF line ends \
                              (`sed -i 's/\\r$//' LEDGER`; in git, `*.jsonl -text` in .gitattributes keeps \
                              them) and read it again"
                        .into(),
                });
            }
            let record: Record = serde_json::from_slice(line).map_err(|e| LedgerError::Parse {
                path: path.to_path_buf(),
                line: lineno,
                column: e.column() as u64,
                message: e.to_string(),
            })?;
            if let Row::Header(h) = &record.row
                && !(MIN_SCHEMA_VERSION..=SCHEMA_VERSION).contains(&h.schema)
            {
                return Err(LedgerError::Schema {
                    path: path.to_path_buf(),
                    found: h.schema,
                });
            }
            // An absurd shard (`1/18446744073709551615`) would make every per-shard table
            // of `verify` and `report` endless: refuse it where it is read.
            if let Row::Header(h) = &record.row
                && let Some(shard) = h.shard
                && let Err(e) = shard.check()
            {
                return Err(LedgerError::Parse {
                    path: path.to_path_buf(),
                    line: lineno,
                    column: 1,
                    message: format!("header `shard`: {e}"),
                });
            }
            if chain_break.is_none() {
                chain_break = chain_check(records.len(), &record, &last_hash);
            }
            last_hash = sha256_hex(line);
            // A row's `prev` is checked here and needed after only for the last row (its
            // hash is the new head when `chain_covered` leaves that row out): the others'
            // are not kept (64 bytes a row, 900,000 rows for a suite of 100,000 cases).
            if let Some(before) = records.last_mut() {
                before.prev = String::new();
            }
            records.push(record);
            complete_len += n as u64;
            last_line_len = n as u64;
        }
        // Grown by doubling while read: the spare room was up to 64 bytes a row (900,000
        // rows for a suite of 100,000 cases: issue 30).
        records.shrink_to_fit();
        if !matches!(records.first().map(|r| &r.row), Some(Row::Header(_))) {
            return Err(LedgerError::Empty {
                path: path.to_path_buf(),
            });
        }
        Ok(Ledger {
            path: path.to_path_buf(),
            records,
            chain_break,
            last_hash,
            complete_len,
            torn_tail,
            blank_tail,
            last_line_len,
            left_out: None,
        })
    }

    /// The header row.
    pub fn header(&self) -> &Header {
        match &self.records[0].row {
            Row::Header(h) => h,
            _ => unreachable!("Ledger::read guarantees a header first"),
        }
    }

    /// The attempt rows, in file order.
    pub fn attempts(&self) -> impl Iterator<Item = &AttemptRow> {
        self.records.iter().filter_map(|r| match &r.row {
            Row::Attempt(a) => Some(&**a),
            _ => None,
        })
    }

    /// The decision rows, in file order.
    pub fn decisions(&self) -> impl Iterator<Item = &DecisionRow> {
        self.records.iter().filter_map(|r| match &r.row {
            Row::Decision(d) => Some(&**d),
            _ => None,
        })
    }

    /// The last footer, if the run closed.
    pub fn footer(&self) -> Option<&Footer> {
        self.records.iter().rev().find_map(|r| match &r.row {
            Row::Footer(f) => Some(&**f),
            _ => None,
        })
    }

    /// The first row whose `seq` or `prev` does not continue the chain, as (0-based index,
    /// what is wrong).
    pub fn first_chain_break(&self) -> Option<(usize, String)> {
        self.chain_break.clone()
    }

    /// The 0-based index of the last row when no hash covers it: each row's `prev` covers
    /// the row before, so the last row is vouched for only by a footer check (the footer's
    /// verdict must recompute from the attempt rows, which `gate verify` and `gate report`
    /// check) or by a head hash recorded elsewhere. A last row that is not a footer (a run
    /// cut short by a crash, or a file cut there on purpose) could say anything: an attempt
    /// row flipped from fail to pass breaks no chain. `None` when the last row is the
    /// footer, the header (nothing to leave out), or was already left out.
    pub fn uncovered_last_row(&self) -> Option<usize> {
        if self.left_out.is_some() {
            return None;
        }
        let i = self.records.len().checked_sub(1).filter(|&i| i > 0)?;
        (!matches!(self.records[i].row, Row::Footer(_))).then_some(i)
    }

    /// This ledger without a last row no hash covers ([`Ledger::uncovered_last_row`]): what
    /// a report may be made from, so that no verdict rests on a row anyone could have
    /// edited without breaking the chain (issue 29, V1). The row left out is named in
    /// [`Ledger::left_out`]. A resumed run reads the file itself, not this view: `gate run
    /// --resume` continues after every complete row, and its next row covers the last.
    pub fn chain_covered(mut self) -> Ledger {
        if let Some(i) = self.uncovered_last_row()
            && let Some(last) = self.records.pop()
        {
            // The row left out holds the hash of the row before it: the new head.
            self.last_hash = last.prev;
            self.complete_len -= self.last_line_len;
            self.last_line_len = 0;
            self.left_out = Some(i as u64 + 1);
        }
        self
    }
}

/// Whether `r`, read at 0-based index `i` after a line whose hash is `prev`, continues the
/// chain: `None`, or what is wrong.
fn chain_check(i: usize, r: &Record, prev: &str) -> Option<(usize, String)> {
    if r.seq != i as u64 {
        return Some((i, format!("seq is {} where {} was expected", r.seq, i)));
    }
    if r.prev != prev {
        return Some((
            i,
            "prev does not match the SHA-256 of the line before (edited, dropped or reordered row)"
                .to_string(),
        ));
    }
    None
}

/// Where the lock of `ledger` lives: `LEDGER.lock` (taken by `runner::session::LedgerLock`;
/// no report may be written there: `publish.rs`).
///
/// The path is resolved first (symlinks, `.` and `..`), so two spellings of one ledger
/// (`./l.jsonl`, a symlink to it) take the same lock instead of two different ones.
pub fn lock_path(ledger: &Path) -> PathBuf {
    let resolved = std::fs::canonicalize(ledger).ok().or_else(|| {
        // A ledger not created yet: resolve its folder and keep its name.
        let name = ledger.file_name()?;
        let dir = ledger.parent().filter(|d| !d.as_os_str().is_empty());
        let dir = std::fs::canonicalize(dir.unwrap_or(Path::new("."))).ok()?;
        Some(dir.join(name))
    });
    let ledger = resolved.as_deref().unwrap_or(ledger);
    let mut name = ledger.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// This machine's host name, or `unknown`.
pub fn hostname() -> String {
    // What gethostname(2) returns on Linux: uname's node name (uname cannot fail).
    rustix::system::uname()
        .nodename()
        .to_string_lossy()
        .into_owned()
}

/// Now, as RFC 3339 UTC with milliseconds.
pub fn now_rfc3339() -> String {
    rfc3339(SystemTime::now())
}

/// A time as RFC 3339 UTC with milliseconds, e.g. `2026-11-29T14:32:52.123Z`.
pub fn rfc3339(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Howard Hinnant's civil_from_days: days since 1970-01-01 → (y, m, d).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Shard;
    use std::time::Duration;

    #[test]
    fn rfc3339_known_instants() {
        assert_eq!(rfc3339(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(951_782_400_000 + 1);
        assert_eq!(rfc3339(t), "2000-02-29T00:00:00.001Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_795_963_972);
        assert_eq!(rfc3339(t), "2026-11-29T14:52:52.000Z");
    }

    #[test]
    fn shard_ownership_partitions_ordinals() {
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { k, m: 3 }).collect();
        for ordinal in 1..=30 {
            assert_eq!(shards.iter().filter(|s| s.owns(ordinal)).count(), 1);
        }
        assert!(Shard { k: 2, m: 3 }.owns(5));
    }
}
