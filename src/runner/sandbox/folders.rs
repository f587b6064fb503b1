//! The box's folders in gate's temporary folder: each attempt's `TMPDIR` (`gate-PID-N`), the
//! run's folder of result folders (`gate-PID-N-results`, locked while the run lives), and the
//! removal of what a gate that died without cleaning up left there.

use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Counts temporary directories made by this process, for unique names.
static CELLS: AtomicU64 = AtomicU64::new(0);

/// A new folder `gate-PID-N{suffix}` in `root`, mode 0700 (N counts the folders this process
/// made).
pub(super) fn fresh_dir(root: &Path, suffix: &str) -> io::Result<PathBuf> {
    fresh_dir_from(root, suffix, None)
}

/// [`fresh_dir`], a spare of `key` in `spares` renamed to it where there is one.
pub(super) fn fresh_dir_from(
    root: &Path,
    suffix: &str,
    spares: Option<(&Spares, &Path)>,
) -> io::Result<PathBuf> {
    loop {
        let n = CELLS.fetch_add(1, Ordering::Relaxed);
        let dir = root.join(format!("gate-{}-{n}{suffix}", std::process::id()));
        let made = match spares {
            Some((spares, key)) => spares.make(key, &dir).and_then(|made| {
                if made {
                    Ok(())
                } else {
                    Err(io::ErrorKind::AlreadyExists.into())
                }
            }),
            None => fs::DirBuilder::new().mode(0o700).create(&dir),
        };
        match made {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!(
                        "cannot create a temporary directory in `{}`: {e}",
                        root.display()
                    ),
                ));
            }
            Ok(()) => return Ok(dir),
        }
    }
}

/// Empty folders of finished attempts and trials, kept to become the next one's folder by a
/// `rename` instead of being removed and made again (issue 29, session 5).
///
/// On an ext4 file system without a journal (this project's CI machine), `mkdir` skips every
/// inode freed in the last seconds (`recently_deleted`), reading its inode block to tell:
/// with two folders made and removed per trial, that scan was a quarter of a no-op trial's
/// CPU time. A rename allocates no inode.
///
/// A spare goes only to a folder with the same key: an attempt of the same working folder
/// (its `TMPDIR`), a trial of the same task of the same run (its result folder). Those
/// trials already share a writable folder (the working folder), so whatever a task could
/// leave on a reused folder (its timestamps) tells the next holder nothing it could not
/// learn there; and a spare is kept only when it is as gate made it ([`reusable`]):
/// empty, gate's user's, mode 0700, no extended attribute (nor ACL), not a link.
#[derive(Debug, Default)]
pub(crate) struct Spares {
    free: Mutex<Vec<(PathBuf, PathBuf)>>,
}

/// Spares kept per run; past that a finished folder is removed.
const MAX_SPARES: usize = 64;

impl Spares {
    /// Make the new folder `dir` (its parent exists), mode 0700: a spare of `key` renamed
    /// to it, else a fresh `mkdir`. `Ok(false)` when `dir` already exists (as `mkdir`'s
    /// `EEXIST`; no spare is used then).
    pub(crate) fn make(&self, key: &Path, dir: &Path) -> io::Result<bool> {
        let spare = {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            free.iter()
                .position(|(k, _)| k == key)
                .map(|i| free.swap_remove(i).1)
        };
        if let Some(spare) = spare {
            // NOREPLACE: never over an existing folder (an earlier attempt's).
            match rustix::fs::renameat_with(
                rustix::fs::CWD,
                &spare,
                rustix::fs::CWD,
                dir,
                rustix::fs::RenameFlags::NOREPLACE,
            ) {
                Ok(()) => return Ok(true),
                Err(rustix::io::Errno::EXIST) => {
                    self.give_back(key, &spare);
                    return Ok(false);
                }
                // Not renamed (another file system, a kernel without `renameat2`): made
                // afresh below.
                Err(_) => remove_folder(&spare),
            }
        }
        match fs::DirBuilder::new().mode(0o700).create(dir) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(e),
        }
    }

    /// `dir` is done with: kept as a spare of `key` when it is as gate made it and the pool
    /// has room, else removed ([`remove_folder`]).
    pub(crate) fn give_back(&self, key: &Path, dir: &Path) {
        if reusable(dir) {
            let mut free = self.free.lock().unwrap_or_else(|e| e.into_inner());
            if free.len() < MAX_SPARES {
                free.push((key.to_path_buf(), dir.to_path_buf()));
                return;
            }
        }
        remove_folder(dir);
    }
}

impl Drop for Spares {
    fn drop(&mut self) {
        let free = self.free.get_mut().unwrap_or_else(|e| e.into_inner());
        for (_, dir) in free.drain(..) {
            remove_folder(&dir);
        }
    }
}

/// Whether the folder `dir` is as gate made it, so that it may become another attempt's:
/// a folder (not a link to one), owned by gate's user, mode 0700 exactly, without extended
/// attributes (a task could leave a note in `user.*` or an ACL there), and empty.
fn reusable(dir: &Path) -> bool {
    use rustix::fs::{FileType, Mode, OFlags};
    let Ok(fd) = rustix::fs::open(
        dir,
        OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC,
        Mode::empty(),
    ) else {
        return false;
    };
    let as_made = rustix::fs::fstat(&fd).is_ok_and(|st| {
        FileType::from_raw_mode(st.st_mode) == FileType::Directory
            && st.st_uid == rustix::process::geteuid().as_raw()
            && st.st_mode & 0o7777 == 0o700
            // A subfolder links back to it.
            && st.st_nlink == 2
    });
    if !as_made || rustix::fs::flistxattr_query(&fd) != Ok(0) {
        return false;
    }
    let Ok(mut entries) = rustix::fs::Dir::new(fd) else {
        return false;
    };
    // Only `.` and `..`, and no error reading.
    let mut seen = 0;
    while let Some(entry) = entries.read() {
        match entry {
            Ok(e) if matches!(e.file_name().to_bytes(), b"." | b"..") => seen += 1,
            _ => return false,
        }
    }
    seen == 2
}

/// Remove the folder `dir` and what it holds, without following a symbolic link: one
/// `rmdir` when it is empty, as a trial's `TMPDIR` and result folder usually are by then
/// (issue 29: `remove_dir_all` costs a dozen system calls even for an empty folder), else
/// `remove_dir_all` (also when `dir` has become a link: `rmdir` refuses a link).
pub(crate) fn remove_folder(dir: &Path) {
    if fs::remove_dir(dir).is_err() {
        let _ = fs::remove_dir_all(dir);
    }
}

/// Remove what gate processes that died without cleaning up (a SIGKILL, an OOM kill) left in
/// `root`: folders named `gate-PID-…` as gate names them (`gate-PID-N`, a `TMPDIR`, only
/// beside a results folder of the same pid whose lock is won here;
/// `gate-PID-N-results`), owned by this user, not links, whose process is gone (`kill(PID,
/// 0)` finds none) and whose results folder, if any, nobody holds locked (a gate alive in
/// another PID namespace that shares this folder still holds its lock). Anything else is
/// left alone.
pub(super) fn remove_stale(root: &Path) {
    use std::os::unix::fs::MetadataExt;
    let Ok(entries) = fs::read_dir(root) else {
        return;
    };
    let me = std::process::id();
    let uid = rustix::process::geteuid().as_raw();
    let mut stale: Vec<(u32, PathBuf)> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(stale_pid) else {
            continue;
        };
        let ours = fs::symlink_metadata(e.path()).is_ok_and(|m| m.is_dir() && m.uid() == uid);
        if pid != me && ours && !process_exists(pid) {
            stale.push((pid, e.path()));
        }
    }
    // Decided before anything is removed, and the locks won are held until the removal is
    // done, so that a gate that has just made a results folder of that name (its pid dead
    // here: another PID namespace) cannot take the lock and start using it meanwhile. A
    // results folder that cannot be opened to try its lock counts as held. A pid's
    // `TMPDIR`s go only with a results folder of that pid whose lock was won: a `gate-PID-N`
    // without one may be a live gate's in another PID namespace that made no results folder
    // (a gate from before them), and the lock is the only proof across namespaces.
    let mut won: Vec<(u32, fs::File)> = Vec::new();
    let mut held: Vec<u32> = Vec::new();
    for (pid, dir) in &stale {
        if !dir.to_str().is_some_and(|d| d.ends_with("-results")) {
            continue;
        }
        match fs::File::open(dir).and_then(|f| {
            super::super::sys::try_lock_exclusive(&f).map(|locked| locked.then_some(f))
        }) {
            Ok(Some(f)) => won.push((*pid, f)),
            _ => held.push(*pid),
        }
    }
    for (pid, dir) in &stale {
        if !held.contains(pid) && won.iter().any(|(p, _)| p == pid) {
            let _ = fs::remove_dir_all(dir);
        }
    }
    drop(won);
}

/// The pid in a folder name gate gives (`gate-PID-N` or `gate-PID-N-results`).
fn stale_pid(name: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix("gate-")?.split_once('-')?;
    let n = rest.strip_suffix("-results").unwrap_or(rest);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(pid) && digits(n))
        .then(|| pid.parse().ok())
        .flatten()
}

/// Whether a process `pid` exists (one of another user's counts: `EPERM`).
fn process_exists(pid: u32) -> bool {
    // Pid 0 (`kill(0, 0)`: this process's own group) counts as existing, as before.
    let Some(pid) = libc::pid_t::try_from(pid)
        .ok()
        .and_then(rustix::process::Pid::from_raw)
    else {
        return true;
    };
    // Signal 0 sends nothing; the call only checks that the process exists.
    rustix::process::test_kill_process(pid) != Err(rustix::io::Errno::SRCH)
}

/// This run's folder of result folders, `gate-PID-N-results` in `root`, and the file that
/// holds its lock.
pub(super) fn make_results_root(root: &Path) -> io::Result<(PathBuf, fs::File)> {
    loop {
        let dir = fresh_dir(root, "-results")?;
        // A later run that finds the folder takes its lock only once this process is gone.
        // A gate starting in another PID namespace (where this pid is dead) may find the
        // folder between its making and its locking, and lock it to remove it: then the
        // lock is not won here, and the folder is not used.
        let locked = fs::File::open(&dir)
            .and_then(|f| super::super::sys::try_lock_exclusive(&f).map(|won| won.then_some(f)));
        match locked {
            Ok(Some(f)) => return Ok((dir, f)),
            Ok(None) => {}
            Err(e) => {
                let _ = fs::remove_dir(&dir);
                return Err(e);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::{MetadataExt, PermissionsExt};

    /// The inode of `p`: a spare renamed into a new folder keeps its own.
    fn ino(p: &Path) -> u64 {
        fs::symlink_metadata(p).unwrap().ino()
    }

    #[test]
    fn an_empty_folder_is_renamed_into_the_next_one_of_its_key_only() {
        let d = tempfile::tempdir().unwrap();
        let spares = Spares::default();
        let (a, b, c) = (d.path().join("a"), d.path().join("b"), d.path().join("c"));
        assert!(spares.make(Path::new("k"), &a).unwrap());
        let first = ino(&a);
        assert_eq!(
            fs::metadata(&a).unwrap().permissions().mode() & 0o7777,
            0o700
        );
        spares.give_back(Path::new("k"), &a);
        // Another key's folder is made afresh; the spare waits for its own key.
        assert!(spares.make(Path::new("other"), &c).unwrap());
        assert_ne!(ino(&c), first);
        assert!(a.exists());
        assert!(spares.make(Path::new("k"), &b).unwrap());
        assert_eq!(ino(&b), first, "renamed, not made again");
        assert!(!a.exists());
        // An existing folder is left as it is, and the spare kept.
        spares.give_back(Path::new("k"), &c);
        fs::write(b.join("earlier attempt"), "x").unwrap();
        assert!(!spares.make(Path::new("k"), &b).unwrap());
        assert!(b.join("earlier attempt").exists() && c.exists());
        // What the pool still holds goes when it drops.
        drop(spares);
        assert!(!c.exists());
    }

    #[test]
    fn a_folder_not_as_gate_made_it_is_removed_not_handed_on() {
        let d = tempfile::tempdir().unwrap();
        let spares = Spares::default();
        let key = Path::new("k");
        let made = |name: &str| {
            let p = d.path().join(name);
            assert!(spares.make(key, &p).unwrap());
            p
        };
        let with_file = made("file");
        fs::write(with_file.join("left"), "x").unwrap();
        let with_dir = made("dir");
        fs::create_dir(with_dir.join("left")).unwrap();
        let chmodded = made("mode");
        fs::set_permissions(&chmodded, fs::Permissions::from_mode(0o1777)).unwrap();
        let linked = d.path().join("link");
        std::os::unix::fs::symlink(made("target"), &linked).unwrap();
        let mut refused = vec![with_file, with_dir, chmodded, linked.clone()];
        // A note in an extended attribute, where the file system takes one.
        let noted = made("xattr");
        if rustix::fs::setxattr(&noted, "user.note", b"1", rustix::fs::XattrFlags::empty()).is_ok()
        {
            refused.push(noted);
        }
        for p in &refused {
            spares.give_back(key, p);
            assert!(fs::symlink_metadata(p).is_err(), "{} removed", p.display());
        }
        assert!(spares.free.lock().unwrap().is_empty());
        // The link's target was not touched through it.
        assert!(d.path().join("target").is_dir());
    }

    #[test]
    fn only_gates_own_folder_names_are_taken_for_stale() {
        assert_eq!(stale_pid("gate-123-4"), Some(123));
        assert_eq!(stale_pid("gate-123-4-results"), Some(123));
        for other in [
            "gate-123",
            "gate-123-",
            "gate--4",
            "gate-12x-4",
            "gate-123-4x",
            "gate-123-results",
            "gate-probe-123-4",
            "gate-123-4-results-x",
            "xgate-123-4",
        ] {
            assert_eq!(stale_pid(other), None, "{other}");
        }
    }

    #[test]
    fn a_dead_gates_folders_are_removed_and_nothing_else() {
        let d = tempfile::tempdir().unwrap();
        // A pid that does not exist (beyond pid_max) and one that does (ours, and pid 1).
        let dead = 999_999_999u32;
        let made = |name: &str| {
            let p = d.path().join(name);
            fs::create_dir(&p).unwrap();
            fs::write(p.join("f"), "x").unwrap();
            p
        };
        let stale = [
            made(&format!("gate-{dead}-0")),
            made(&format!("gate-{dead}-1-results")),
        ];
        let kept = [
            made(&format!("gate-{}-0", std::process::id())),
            made("gate-1-0"),
            made(&format!("gate-{dead}-x")),
            made("other"),
        ];
        // A link with a dead gate's name is not followed, and not removed.
        let target = made("target");
        let link = d.path().join(format!("gate-{dead}-2"));
        std::os::unix::fs::symlink(&target, &link).unwrap();
        remove_stale(d.path());
        for p in &stale {
            assert!(!p.exists(), "{} is removed", p.display());
        }
        for p in kept.iter().chain([&target]) {
            assert!(p.join("f").exists(), "{} is kept", p.display());
        }
        assert!(fs::symlink_metadata(&link).is_ok(), "the link is kept");
    }

    #[test]
    fn a_dead_pids_tmpdir_without_a_results_folder_is_kept() {
        // A live gate in another PID namespace that made no results folder (one from before
        // them): nothing here proves it gone, so its TMPDIR stays.
        let d = tempfile::tempdir().unwrap();
        let dead = 999_999_997u32;
        let tmp = d.path().join(format!("gate-{dead}-0"));
        fs::create_dir(&tmp).unwrap();
        remove_stale(d.path());
        assert!(
            tmp.exists(),
            "a TMPDIR with no results folder of its pid is kept"
        );
    }

    #[test]
    fn a_dead_pids_folders_stay_while_their_lock_is_held() {
        // A gate alive in another PID namespace: its pid is not found here, its lock is held.
        let d = tempfile::tempdir().unwrap();
        let dead = 999_999_998u32;
        let tmp = d.path().join(format!("gate-{dead}-0"));
        let results = d.path().join(format!("gate-{dead}-1-results"));
        fs::create_dir(&tmp).unwrap();
        fs::create_dir(&results).unwrap();
        let holder = fs::File::open(&results).unwrap();
        assert!(super::super::super::sys::try_lock_exclusive(&holder).unwrap());
        remove_stale(d.path());
        assert!(tmp.exists() && results.exists());
        drop(holder);
        remove_stale(d.path());
        assert!(!tmp.exists() && !results.exists());
    }
}
