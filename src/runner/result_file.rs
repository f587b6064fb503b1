//! Reading `$GATE_RESULT`: the one file a task hands back to gate, read as hostile input.
//!
//! The task controls what sits at that path when it exits. A FIFO would block a plain
//! `read` forever (until a writer appears), a symlink to `/dev/zero` would read until memory
//! runs out, a device may do anything on open. So the file is opened with `O_NOFOLLOW`
//! (a symlink is refused, whatever it points at) and `O_NONBLOCK` (opening a FIFO cannot
//! wait for a writer), must be a regular file by `fstat` of the descriptor actually opened
//! (not by a path check a task could race), and is read up to [`MAX_RESULT_BYTES`] and no
//! further, with the attempt's deadline checked between reads. Anything else is a broken
//! result file: a harness error, decided in microseconds with at most the cap in memory.
//!
//! The keys of the file are parsed here as well: unknown keys are not an error (a newer task
//! harness may write more than this gate reads) but are reported back as ignored, so the
//! runner can keep a warning that names them in the ledger.

use std::fs::File;
use std::io::Read;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;
use std::time::Instant;

use crate::ledger::TaskResult;

/// Largest result file gate reads. A result file carries a grade and a few numbers; 1 MiB is
/// four orders of magnitude above any honest one and small enough to hold per attempt.
pub const MAX_RESULT_BYTES: u64 = 1024 * 1024;

/// Keys a result file may hold, as documented.
pub const ALLOWED_KEYS: [&str; 7] = [
    "pass", "score", "fault", "cost", "tokens", "attempts", "note",
];

/// Most unknown keys named in a warning, and the most bytes of each name kept; the rest are
/// counted, not stored (a task could write a million keys).
pub const MAX_IGNORED_KEYS: usize = 8;
/// Bytes of an unknown key's name kept in the ledger.
pub const MAX_KEY_BYTES: usize = 64;

/// Why a result file is broken. Each message is complete on its own and names no content
/// of the file beyond bounded, escaped excerpts.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ResultFileError {
    /// The path is a symbolic link.
    #[error("result file `$GATE_RESULT` is a symbolic link; write a regular file")]
    Symlink,
    /// The path is not a regular file (FIFO, device, socket, directory).
    #[error("result file `$GATE_RESULT` is a {0}, not a regular file")]
    NotRegular(&'static str),
    /// The file is larger than [`MAX_RESULT_BYTES`].
    #[error(
        "result file `$GATE_RESULT` is larger than {} bytes (the limit is {MAX_RESULT_BYTES})",
        MAX_RESULT_BYTES
    )]
    TooLarge,
    /// The attempt's deadline passed while reading.
    #[error("reading result file `$GATE_RESULT` did not finish before the attempt's deadline")]
    Deadline,
    /// Any other I/O error.
    #[error("cannot read result file `$GATE_RESULT`: {0}")]
    Io(String),
    /// Not JSON, or a known key of the wrong type.
    #[error("result file `$GATE_RESULT` is not valid: {0}")]
    Invalid(String),
}

/// A parsed result file.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The known keys.
    pub result: TaskResult,
    /// Unknown keys that were ignored, at most [`MAX_IGNORED_KEYS`], each at most
    /// [`MAX_KEY_BYTES`] bytes.
    pub ignored: Vec<String>,
    /// How many unknown keys there were in all.
    pub ignored_total: usize,
}

/// What kind of file a mode is, in words.
fn kind(ft: std::fs::FileType) -> &'static str {
    if ft.is_fifo() {
        "FIFO"
    } else if ft.is_char_device() {
        "character device"
    } else if ft.is_block_device() {
        "block device"
    } else if ft.is_socket() {
        "socket"
    } else if ft.is_dir() {
        "directory"
    } else if ft.is_symlink() {
        "symbolic link"
    } else {
        "special file"
    }
}

/// Read the result file at `path`, if there is one, before `deadline`.
///
/// `Ok(None)`: the task wrote no result file (it is optional).
pub fn read(path: &Path, deadline: Instant) -> Result<Option<Vec<u8>>, ResultFileError> {
    // A first look without following links, so a device or FIFO is never even opened (opening
    // some devices has side effects). The authoritative check is the fstat below: the task
    // may swap the path between the two.
    match std::fs::symlink_metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ResultFileError::Io(e.to_string())),
        Ok(m) if m.file_type().is_symlink() => return Err(ResultFileError::Symlink),
        Ok(m) if !m.file_type().is_file() => {
            return Err(ResultFileError::NotRegular(kind(m.file_type())));
        }
        Ok(_) => {}
    }
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match file {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        // O_NOFOLLOW on a symlink fails with ELOOP.
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => return Err(ResultFileError::Symlink),
        Err(e) => return Err(ResultFileError::Io(e.to_string())),
    };
    let meta = file
        .metadata()
        .map_err(|e| ResultFileError::Io(e.to_string()))?;
    if !meta.file_type().is_file() {
        return Err(ResultFileError::NotRegular(kind(meta.file_type())));
    }
    if meta.size() > MAX_RESULT_BYTES {
        return Err(ResultFileError::TooLarge);
    }
    read_capped(file, deadline).map(Some)
}

/// Read at most [`MAX_RESULT_BYTES`] (one more to detect a file that grew since `fstat`).
fn read_capped(file: File, deadline: Instant) -> Result<Vec<u8>, ResultFileError> {
    let mut buf = Vec::new();
    let mut limited = file.take(MAX_RESULT_BYTES + 1);
    let mut chunk = [0u8; 64 * 1024];
    loop {
        if Instant::now() >= deadline {
            return Err(ResultFileError::Deadline);
        }
        match limited.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ResultFileError::Io(e.to_string())),
        }
    }
    if buf.len() as u64 > MAX_RESULT_BYTES {
        return Err(ResultFileError::TooLarge);
    }
    Ok(buf)
}

/// Parse result-file bytes: known keys into [`TaskResult`], unknown keys set aside.
pub fn parse(bytes: &[u8]) -> Result<Parsed, ResultFileError> {
    let value: serde_json::Value = serde_json::from_slice(bytes)
        .map_err(|e| ResultFileError::Invalid(crate::untrusted::clip(&e.to_string(), 300)))?;
    let serde_json::Value::Object(mut map) = value else {
        return Err(ResultFileError::Invalid(
            "expected a JSON object such as `{\"pass\": true}`".to_string(),
        ));
    };
    let unknown: Vec<String> = map
        .keys()
        .filter(|k| !ALLOWED_KEYS.contains(&k.as_str()))
        .cloned()
        .collect();
    for k in &unknown {
        map.remove(k);
    }
    let result: TaskResult = serde_json::from_value(serde_json::Value::Object(map))
        .map_err(|e| ResultFileError::Invalid(crate::untrusted::clip(&e.to_string(), 300)))?;
    Ok(Parsed {
        result,
        ignored: unknown
            .iter()
            .take(MAX_IGNORED_KEYS)
            .map(|k| crate::untrusted::clip(k, MAX_KEY_BYTES))
            .collect(),
        ignored_total: unknown.len(),
    })
}

/// The warning kept in the ledger for ignored keys, naming them and the allowed ones.
pub fn ignored_warning(p: &Parsed) -> Option<String> {
    if p.ignored_total == 0 {
        return None;
    }
    let named: Vec<String> = p
        .ignored
        .iter()
        .map(|k| format!("`{}`", crate::untrusted::one_line(k)))
        .collect();
    let more = p.ignored_total - p.ignored.len();
    let more = if more > 0 {
        format!(" and {more} more")
    } else {
        String::new()
    };
    let allowed: Vec<String> = ALLOWED_KEYS.iter().map(|k| format!("`{k}`")).collect();
    Some(format!(
        "result file has unknown key{} {}{more}, ignored (allowed: {})",
        if p.ignored_total == 1 { "" } else { "s" },
        named.join(", "),
        allowed.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(5)
    }

    #[test]
    fn missing_file_is_no_result() {
        let d = tempfile::tempdir().unwrap();
        assert_eq!(read(&d.path().join("r.json"), soon()), Ok(None));
    }

    #[test]
    fn regular_file_is_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        std::fs::write(&p, br#"{"pass": true}"#).unwrap();
        assert_eq!(read(&p, soon()), Ok(Some(br#"{"pass": true}"#.to_vec())));
    }

    #[test]
    fn result_file_fifo_is_refused_without_blocking() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &p,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(read(&p, soon()), Err(ResultFileError::NotRegular("FIFO")));
    }

    #[test]
    fn result_file_symlink_to_dev_zero_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        std::os::unix::fs::symlink("/dev/zero", &p).unwrap();
        assert_eq!(read(&p, soon()), Err(ResultFileError::Symlink));
    }

    #[test]
    fn result_file_symlink_to_a_regular_file_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let target = d.path().join("elsewhere.json");
        std::fs::write(&target, br#"{"pass": true}"#).unwrap();
        let p = d.path().join("r.json");
        std::os::unix::fs::symlink(&target, &p).unwrap();
        assert_eq!(read(&p, soon()), Err(ResultFileError::Symlink));
    }

    #[test]
    fn result_file_directory_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        std::fs::create_dir(&p).unwrap();
        assert_eq!(
            read(&p, soon()),
            Err(ResultFileError::NotRegular("directory"))
        );
    }

    #[test]
    fn oversized_result_file_is_refused_without_reading_it() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        let f = File::create(&p).unwrap();
        // Sparse: no disk cost, but fstat reports the size.
        f.set_len(MAX_RESULT_BYTES + 1).unwrap();
        assert_eq!(read(&p, soon()), Err(ResultFileError::TooLarge));
    }

    #[test]
    fn a_past_deadline_stops_the_read() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        std::fs::write(&p, b"{}").unwrap();
        assert_eq!(read(&p, Instant::now()), Err(ResultFileError::Deadline));
    }

    #[test]
    fn unknown_keys_are_set_aside_and_named() {
        let p = parse(br#"{"pass": false, "reason": "x", "note": "n"}"#).unwrap();
        assert_eq!(p.result.pass, Some(false));
        assert_eq!(p.result.note.as_deref(), Some("n"));
        assert_eq!(p.ignored, vec!["reason".to_string()]);
        let w = ignored_warning(&p).unwrap();
        assert!(w.contains("`reason`"), "{w}");
        assert!(w.contains("allowed: `pass`, `score`"), "{w}");
    }

    #[test]
    fn many_unknown_keys_are_counted_not_stored() {
        let mut obj = serde_json::Map::new();
        for i in 0..1000 {
            obj.insert(
                format!("k{i:04}{}", "x".repeat(200)),
                serde_json::Value::Null,
            );
        }
        let bytes = serde_json::to_vec(&obj).unwrap();
        let p = parse(&bytes).unwrap();
        assert_eq!(p.ignored.len(), MAX_IGNORED_KEYS);
        assert_eq!(p.ignored_total, 1000);
        assert!(p.ignored.iter().all(|k| k.len() <= MAX_KEY_BYTES + 3));
        assert!(ignored_warning(&p).unwrap().contains("and 992 more"));
    }

    #[test]
    fn a_known_key_of_the_wrong_type_is_invalid() {
        assert!(matches!(
            parse(br#"{"pass": "yes"}"#),
            Err(ResultFileError::Invalid(_))
        ));
        assert!(matches!(parse(b"[1]"), Err(ResultFileError::Invalid(_))));
    }
}
