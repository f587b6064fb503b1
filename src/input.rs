//! Opening input files (plans, ledgers) and output paths as a careful user would.
//!
//! A plan or ledger path can be a FIFO (a read blocks until a writer appears, forever in CI)
//! or a device (`/dev/zero` reads without end). Inputs are opened with `O_NONBLOCK`, must be
//! regular files by `fstat` of the descriptor actually opened, and are read up to a stated
//! size. Output paths are compared by what they resolve to, so `--json` cannot name the
//! ledger, the plan, or another report under a different spelling.

use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What kind of non-regular file a type is, in words.
pub fn kind(ft: std::fs::FileType) -> &'static str {
    if ft.is_fifo() {
        "a FIFO"
    } else if ft.is_char_device() {
        "a character device"
    } else if ft.is_block_device() {
        "a block device"
    } else if ft.is_socket() {
        "a socket"
    } else if ft.is_dir() {
        "a directory"
    } else {
        "not a regular file"
    }
}

fn not_regular(ft: std::fs::FileType) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {}, not a regular file", kind(ft)),
    )
}

/// Open `path` for reading; refuse anything but a regular file (symlinks to one are fine:
/// these are the user's own files, not the task's). Returns the file and its size.
pub fn open_regular(path: &Path) -> io::Result<(File, u64)> {
    // O_NONBLOCK: opening a FIFO for reading then returns at once instead of waiting for a
    // writer; it has no effect on reads of a regular file.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(not_regular(meta.file_type()));
    }
    Ok((file, meta.len()))
}

/// Read a whole regular file of at most `max` bytes.
pub fn read_regular(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let (file, len) = open_regular(path)?;
    if len > max {
        return Err(too_large(len, max));
    }
    let mut buf = Vec::with_capacity(len as usize);
    file.take(max + 1).read_to_end(&mut buf)?;
    if buf.len() as u64 > max {
        return Err(too_large(buf.len() as u64, max));
    }
    Ok(buf)
}

/// Read a file of a project gate was pointed at but does not trust (`gate init` in a fresh
/// checkout): `rel` beneath `dir`, a regular file of at most `max` bytes, opened without
/// blocking (a FIFO is refused, not waited on); a symbolic link is followed only when it
/// stays inside `dir` (one to `/dev/zero` or `/etc/passwd` is refused).
pub fn read_project_file(dir: &Path, rel: &Path, max: u64) -> io::Result<Vec<u8>> {
    let path = dir.join(rel);
    if std::fs::symlink_metadata(&path)?.file_type().is_symlink() {
        let root = std::fs::canonicalize(dir)?;
        let target = std::fs::canonicalize(&path)?;
        if !target.starts_with(&root) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!(
                    "is a symbolic link to `{}`, outside the project",
                    target.display()
                ),
            ));
        }
    }
    read_regular(&path, max)
}

fn too_large(len: u64, max: u64) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("is {len} bytes; at most {max} bytes are read"),
    )
}

/// Refuse an output path that exists and is not a regular file (a FIFO would block the
/// write, a device would swallow it).
pub fn check_output(path: &Path) -> io::Result<()> {
    match std::fs::metadata(path) {
        Ok(m) if !m.file_type().is_file() => Err(not_regular(m.file_type())),
        _ => Ok(()),
    }
}

/// What a path resolves to, for comparing paths: the canonical path of the file if it
/// exists, else the canonical parent joined with the name, else the absolute path.
pub fn resolved(path: &Path) -> PathBuf {
    if let Ok(p) = std::fs::canonicalize(path) {
        return p;
    }
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    match (abs.parent(), abs.file_name()) {
        (Some(dir), Some(name)) => std::fs::canonicalize(dir)
            .map(|d| d.join(name))
            .unwrap_or(abs),
        _ => abs,
    }
}

/// Whether two paths name the same file: the same device and inode when both exist (a hard
/// link is another name of the same file), else the same [`resolved`] path.
pub fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (std::fs::metadata(a), std::fs::metadata(b)) {
        (Ok(ma), Ok(mb)) => ma.dev() == mb.dev() && ma.ino() == mb.ino(),
        _ => resolved(a) == resolved(b),
    }
}

/// The first pair of flags whose paths name the same file ([`same_file`]), as (flag, flag).
pub fn first_clash<'a>(named: &[(&'a str, &Path)]) -> Option<(&'a str, &'a str)> {
    for (i, (a, pa)) in named.iter().enumerate() {
        for (b, pb) in &named[i + 1..] {
            if same_file(pa, pb) {
                return Some((a, b));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fifo_is_refused_at_once() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("plan.yaml");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &p,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let e = read_regular(&p, 10).unwrap_err();
        assert!(e.to_string().contains("is a FIFO"), "{e}");
    }

    #[test]
    fn a_device_and_an_oversized_file_are_refused() {
        let e = read_regular(Path::new("/dev/zero"), 10).unwrap_err();
        assert!(e.to_string().contains("character device"), "{e}");
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("big");
        std::fs::write(&p, vec![b'x'; 11]).unwrap();
        assert!(
            read_regular(&p, 10)
                .unwrap_err()
                .to_string()
                .contains("at most 10")
        );
        assert_eq!(read_regular(&p, 11).unwrap().len(), 11);
    }

    #[test]
    fn a_project_file_linking_out_of_the_project_is_refused() {
        let d = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", d.path().join("zero")).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", d.path().join("out")).unwrap();
        std::fs::write(d.path().join("real"), "x").unwrap();
        std::os::unix::fs::symlink("real", d.path().join("inside")).unwrap();
        for (name, why) in [
            ("zero", "outside the project"),
            ("out", "outside the project"),
        ] {
            let e = read_project_file(d.path(), Path::new(name), 10).unwrap_err();
            assert!(e.to_string().contains(why), "{name}: {e}");
        }
        assert_eq!(
            read_project_file(d.path(), Path::new("inside"), 10).unwrap(),
            b"x"
        );
    }

    #[test]
    fn different_spellings_of_one_path_clash() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("out")).unwrap();
        let a = d.path().join("out/ledger.jsonl");
        let b = d.path().join("out/../out/./ledger.jsonl");
        let c = d.path().join("out/report.json");
        assert_eq!(
            first_clash(&[("--ledger", &a), ("--json", &c), ("--junit", &b)]),
            Some(("--ledger", "--junit"))
        );
        assert_eq!(first_clash(&[("--ledger", &a), ("--json", &c)]), None);
    }
}
