//! The packages of the `node_modules` folders on a check's way to its packages, as they were
//! when the run started: a wall that reads no grader text (review 42, 110g-110h).
//!
//! A grader may preload or require a package by name with a spelling gate's reading of its
//! text does not find (`-"r" dotenv/config`). Node then loads it from a `node_modules` of the
//! task's folder, which the trials write: a trial that rewrites `dotenv/config.js` runs its
//! own code inside the check. Holding every such folder read-only would stop an agent's
//! `npm install`, so instead each check looks first ([`Packages::changed`]): a file or link of
//! a package installed when the run started that was rewritten, replaced, removed or added
//! to is a change, and the check does not run. New packages are not a change (an agent
//! installs a dependency), except in a `node_modules` that did not exist at the start, where
//! a package of the same name as one above it would shadow that one.
//!
//! What is compared is each path's type, mode, size, inode and change time (`ctime`, which a
//! process cannot set back: content written back as it was is still seen, also after the
//! last check, by the end-of-run look). The folders that only hold packages (a
//! `node_modules`, a scope `@x`, `.bin`, pnpm's `.pnpm` and its entries) are compared by
//! type and inode alone, so an added package is not a change. The dot files and cache
//! folders a package manager or a tool keeps at the top of a `node_modules`
//! (`.package-lock.json`, `.modules.yaml`, `.cache`, `.vite`) are left out: no package by a
//! name node resolves is there.

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// Entries read at most beneath the watched `node_modules` folders; those past it are not
/// watched, which [`Packages::partial`] says.
pub const PACKAGE_ENTRIES: usize = 500_000;

/// The folders at the top of a `node_modules` where tools keep caches the check itself
/// writes (babel and eslint's `.cache`, vite's `.vite`, vitest's `.vitest`).
const CACHES: [&str; 4] = [".cache", ".vite", ".vite-temp", ".vitest"];

/// What a path is, links not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stamp {
    Missing,
    /// A folder of packages: its type and inode.
    Holder {
        dev: u64,
        ino: u64,
        mode: u32,
    },
    /// Anything else: a change to it (or, for a folder, to its list of names) moves `ctime`.
    Entry {
        dev: u64,
        ino: u64,
        mode: u32,
        size: u64,
        ctime: (i64, i64),
    },
}

fn stamp(p: &Path, holder: bool) -> Stamp {
    match fs::symlink_metadata(p) {
        Err(_) => Stamp::Missing,
        Ok(m) if holder && m.is_dir() => Stamp::Holder {
            dev: m.dev(),
            ino: m.ino(),
            mode: m.mode(),
        },
        Ok(m) => Stamp::Entry {
            dev: m.dev(),
            ino: m.ino(),
            mode: m.mode(),
            size: m.size(),
            ctime: (m.ctime(), m.ctime_nsec()),
        },
    }
}

/// What may have changed since the last full comparison: the kernel's word (inotify) on
/// every watched folder, so that a check after a trial that wrote none of them costs one
/// `read`, not one `lstat` per path.
#[derive(Debug, Default)]
struct Notices {
    /// The inotify descriptor, when every folder could be watched.
    fd: Option<std::os::fd::OwnedFd>,
    /// The watch descriptors of the folders that hold packages, where a name created is a
    /// package added (not a change).
    holders: std::collections::HashSet<i32>,
    /// Something happened since the last full comparison found nothing.
    dirty: bool,
}

/// The watched packages ([`Packages::take`]).
#[derive(Debug, Default)]
pub struct Packages {
    /// Every path beneath the watched folders, with whether it holds packages and its stamp.
    entries: Vec<(PathBuf, bool, Stamp)>,
    /// The kernel's notices of changes in the watched folders.
    notices: std::sync::Mutex<Notices>,
    /// `node_modules` paths missing at the start, each with the package names node would
    /// find above it then.
    absent: Vec<(PathBuf, BTreeSet<OsString>)>,
    /// The first folder whose entries past [`PACKAGE_ENTRIES`] are not watched.
    partial: Option<PathBuf>,
}

impl Packages {
    /// Watch the `node_modules` at each of `paths` as it is now: its packages, or, where
    /// there is none, the names of the packages in the `node_modules` of the folders above.
    pub fn take(paths: &[PathBuf]) -> Packages {
        let mut out = Packages::default();
        for p in paths {
            match fs::symlink_metadata(p) {
                Ok(m) if m.is_dir() => {
                    out.entries.push((p.clone(), true, stamp(p, true)));
                    out.walk(p);
                }
                // A link or a file by that name: what it is (a trial re-pointing it is a
                // change), and the folder a link leads to, walked as the `node_modules`.
                Ok(m) => {
                    out.entries.push((p.clone(), false, stamp(p, false)));
                    if m.file_type().is_symlink()
                        && let Ok(to) = fs::canonicalize(p)
                        && to.is_dir()
                    {
                        out.entries.push((to.clone(), true, stamp(&to, true)));
                        out.walk(&to);
                    }
                }
                Err(_) => {
                    let above: BTreeSet<OsString> = p
                        .parent()
                        .into_iter()
                        .flat_map(Path::ancestors)
                        .skip(1)
                        .flat_map(|d| names(&d.join("node_modules")))
                        .collect();
                    out.absent.push((p.clone(), above));
                }
            }
        }
        *out.notices.get_mut().unwrap_or_else(|e| e.into_inner()) = out.notify();
        out
    }

    /// Watch every recorded folder with inotify; without it (no descriptor, the user's
    /// watches used up), every look compares every path.
    fn notify(&self) -> Notices {
        use rustix::fs::inotify::{CreateFlags, WatchFlags, add_watch, init};
        let Ok(fd) = init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK) else {
            return Notices::default();
        };
        let what = WatchFlags::MODIFY
            | WatchFlags::ATTRIB
            | WatchFlags::CREATE
            | WatchFlags::DELETE
            | WatchFlags::MOVED_FROM
            | WatchFlags::MOVED_TO
            | WatchFlags::DELETE_SELF
            | WatchFlags::MOVE_SELF
            | WatchFlags::DONT_FOLLOW
            | WatchFlags::ONLYDIR;
        let mut holders = std::collections::HashSet::new();
        for (p, holder, stamp) in &self.entries {
            let folder = match stamp {
                Stamp::Holder { .. } => true,
                Stamp::Entry { mode, .. } => mode & libc::S_IFMT == libc::S_IFDIR,
                Stamp::Missing => false,
            };
            if !folder {
                continue;
            }
            let Ok(wd) = add_watch(&fd, p.as_path(), what) else {
                return Notices::default();
            };
            if *holder {
                holders.insert(wd);
            }
        }
        Notices {
            fd: Some(fd),
            holders,
            dirty: false,
        }
    }

    /// Whether the kernel reported anything since the last call that could be a change of
    /// a recorded path (or cannot say: its queue overflowed, or there is no watch).
    fn noticed(n: &mut Notices) -> bool {
        use rustix::fs::inotify::{ReadFlags, Reader};
        let Some(fd) = &n.fd else { return true };
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 16 << 10];
        let mut events = Reader::new(fd, &mut buf);
        let mut seen = false;
        loop {
            match events.next() {
                Ok(e) => {
                    let what = e.events() - ReadFlags::ISDIR;
                    let name = e.file_name().map(|n| n.to_bytes()).unwrap_or_default();
                    // In a folder of packages: a package added, or the package manager's own
                    // files and the caches, which are not recorded.
                    let own = n.holders.contains(&e.wd())
                        && (what == ReadFlags::CREATE
                            || (name.starts_with(b".") && name != b".bin" && name != b".pnpm"));
                    seen |= !own;
                }
                Err(rustix::io::Errno::AGAIN) => return seen,
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => return true,
            }
        }
    }

    /// Record everything beneath the `node_modules` at `top`.
    fn walk(&mut self, top: &Path) {
        // (folder, whether it holds packages, whether it is pnpm's `.pnpm`)
        let mut todo = vec![(top.to_path_buf(), true, false)];
        while let Some((dir, holds, pnpm)) = todo.pop() {
            let Ok(list) = fs::read_dir(&dir) else {
                continue;
            };
            for e in list.flatten() {
                if self.entries.len() >= PACKAGE_ENTRIES {
                    self.partial.get_or_insert(top.to_path_buf());
                    return;
                }
                let name = e.file_name();
                let dot = name.as_bytes().starts_with(b".");
                let Ok(kind) = e.file_type() else { continue };
                let folder = kind.is_dir();
                // pnpm's own files beside its store (`lock.yaml`), a package manager's at the
                // top of a `node_modules`, and the tools' caches there.
                if (pnpm && !folder)
                    || (holds && dot && !folder)
                    || (holds && folder && CACHES.iter().any(|c| name == *c))
                {
                    continue;
                }
                let holder = folder
                    && (name == "node_modules"
                        || pnpm
                        || (holds
                            && (name == ".bin"
                                || name == ".pnpm"
                                || name.as_bytes().starts_with(b"@"))));
                let path = e.path();
                self.entries
                    .push((path.clone(), holder, stamp(&path, holder)));
                if folder {
                    todo.push((path, holder, holds && name == ".pnpm"));
                }
            }
        }
    }

    /// [`Packages::changed_since_start`], looked at only where the kernel reported something
    /// in a watched folder since the last look found nothing: the look before each check. A
    /// write through a hard link made elsewhere is not reported, but moves the file's change
    /// time, which the end-of-run look ([`Packages::changed_since_start`]) sees.
    pub fn changed(&self) -> Option<&Path> {
        let mut n = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        let noticed = Packages::noticed(&mut n);
        n.dirty |= noticed;
        if n.dirty {
            let found = self.changed_entry();
            n.dirty = found.is_some();
            if found.is_some() {
                return found;
            }
        }
        self.appeared()
    }

    /// The first watched path that is not what it was when the run started, or a
    /// `node_modules` that appeared where there was none and holds a package by a name node
    /// found above it then: every path compared.
    pub fn changed_since_start(&self) -> Option<&Path> {
        self.changed_entry().or_else(|| self.appeared())
    }

    fn changed_entry(&self) -> Option<&Path> {
        (self.entries.iter())
            .find(|(p, holder, was)| stamp(p, *holder) != *was)
            .map(|(p, _, _)| p.as_path())
    }

    fn appeared(&self) -> Option<&Path> {
        self.absent
            .iter()
            .find(|(p, above)| match fs::symlink_metadata(p) {
                Err(_) => false,
                Ok(m) if m.is_dir() => names(p).iter().any(|n| above.contains(n)),
                // A link or a file: where node looks first, and nothing gate can read.
                Ok(_) => true,
            })
            .map(|(p, _)| p.as_path())
    }

    /// The `node_modules` whose entries past [`PACKAGE_ENTRIES`] are not watched, if any.
    pub fn partial(&self) -> Option<&Path> {
        self.partial.as_deref()
    }

    /// How many paths are watched.
    pub fn len(&self) -> usize {
        self.entries.len() + self.absent.len()
    }

    /// Whether nothing is watched.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a check may not run, or a run publish no verdict, when `path` is
/// [`Packages::changed`]: before a check (`check`), or at the end of the run.
pub fn refusal(path: &Path, check: bool) -> String {
    format!(
        "`{}` changed during the run (a trial did it): it is a package node may load for a \
         check, or a `node_modules` in front of one, so the check could run the trial's code; \
         {}no verdict is published (an agent must not rewrite installed packages; keep a \
         node grader's packages in its own `node_modules`, beside its `package.json`, outside \
         the folders the trials write)",
        path.display(),
        if check {
            "the check was not run and "
        } else {
            ""
        }
    )
}

/// The names of the packages in the `node_modules` at `folder` (`x`, and `@s/x` for a scope),
/// links followed (a `node_modules` may be one); none where there is none.
fn names(folder: &Path) -> BTreeSet<OsString> {
    let mut out = BTreeSet::new();
    let Ok(list) = fs::read_dir(folder) else {
        return out;
    };
    for e in list.flatten().take(PACKAGE_ENTRIES) {
        let name = e.file_name();
        if name.as_bytes().starts_with(b"@") {
            for s in fs::read_dir(e.path()).into_iter().flatten().flatten() {
                let mut scoped = name.clone();
                scoped.push("/");
                scoped.push(s.file_name());
                out.insert(scoped);
            }
        } else {
            // `x.js` is package `x` too (node tries the name with each extension).
            let bytes = name.as_bytes();
            let stem = [".js", ".json", ".node"]
                .iter()
                .find_map(|x| bytes.strip_suffix(x.as_bytes()))
                .unwrap_or(bytes);
            out.insert(OsStr::from_bytes(stem).to_os_string());
            out.insert(name);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(p: &Path, text: &str) {
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    /// A package file rewritten (even back to the same bytes), replaced, removed, or a file
    /// added beside it is a change; a new package, a lock file or a cache is not.
    #[test]
    fn a_package_installed_at_the_start_is_compared_by_what_changes_it() {
        let d = tempfile::tempdir().unwrap();
        let nm = d.path().join("node_modules");
        write(
            &nm.join("dotenv/config.js"),
            "require('./lib/main').config()\n",
        );
        write(
            &nm.join("dotenv/lib/main.js"),
            "exports.config = () => {}\n",
        );
        write(&nm.join("@s/p/index.js"), "\n");
        write(&nm.join(".package-lock.json"), "{}\n");
        write(&nm.join(".cache/babel/x.json"), "{}\n");
        let w = Packages::take(std::slice::from_ref(&nm));
        assert_eq!(w.changed(), None);
        // Honest: a new package, a new scoped one, the lock file, a cache.
        write(&nm.join("left-pad/index.js"), "\n");
        write(&nm.join("@s/q/index.js"), "\n");
        write(&nm.join(".package-lock.json"), "{\"x\":1}\n");
        write(&nm.join(".cache/babel/y.json"), "{}\n");
        assert_eq!(w.changed(), None);
        // The same bytes written back are still a write.
        std::thread::sleep(std::time::Duration::from_millis(20));
        let main = nm.join("dotenv/lib/main.js");
        write(&main, "exports.config = () => {}\n");
        assert_eq!(w.changed(), Some(main.as_path()));
        // A file added beside a package's (node tries `lib/main` before `lib/main.js`).
        let w = Packages::take(std::slice::from_ref(&nm));
        write(&nm.join("dotenv/lib/main"), "process.exit(0)\n");
        assert_eq!(w.changed(), Some(nm.join("dotenv/lib").as_path()));
        // A package removed, a scoped one replaced.
        let w = Packages::take(std::slice::from_ref(&nm));
        fs::remove_dir_all(nm.join("@s/p")).unwrap();
        write(&nm.join("@s/p/index.js"), "\n");
        assert!(w.changed().is_some());
    }

    /// A write through a hard link made outside the watched folders is not reported by the
    /// kernel there, but moves the file's change time: the end-of-run look sees it.
    #[test]
    fn a_write_through_a_hard_link_elsewhere_is_seen_at_the_end() {
        let d = tempfile::tempdir().unwrap();
        let nm = d.path().join("node_modules");
        let file = nm.join("eq/index.js");
        write(&file, "module.exports = (a, b) => a === b;\n");
        let w = Packages::take(std::slice::from_ref(&nm));
        std::thread::sleep(std::time::Duration::from_millis(20));
        let other = d.path().join("mine.js");
        fs::hard_link(&file, &other).unwrap();
        fs::write(&other, "module.exports = () => true;\n").unwrap();
        assert_eq!(w.changed_since_start(), Some(file.as_path()));
    }

    /// Where there was no `node_modules`, one a trial creates is a change only when it
    /// holds a package node found above it when the run started.
    #[test]
    fn a_new_node_modules_is_a_change_only_where_it_shadows_a_package() {
        let d = tempfile::tempdir().unwrap();
        write(&d.path().join("node_modules/dotenv/config.js"), "\n");
        let task = d.path().join("task");
        fs::create_dir_all(&task).unwrap();
        let nm = task.join("node_modules");
        let w = Packages::take(std::slice::from_ref(&nm));
        write(&nm.join("left-pad/index.js"), "\n");
        assert_eq!(w.changed(), None, "an agent's own dependency");
        write(&nm.join("dotenv.js"), "\n");
        assert_eq!(
            w.changed(),
            Some(nm.as_path()),
            "shadows ../node_modules/dotenv"
        );
    }

    /// pnpm's layout: packages are links into `.pnpm`, whose store is watched as packages
    /// and whose `lock.yaml` is pnpm's own.
    #[test]
    fn pnpm_s_store_is_watched_through_its_links() {
        let d = tempfile::tempdir().unwrap();
        let nm = d.path().join("node_modules");
        let real = nm.join(".pnpm/dotenv@16.0.0/node_modules/dotenv/config.js");
        write(&real, "\n");
        write(&nm.join(".pnpm/lock.yaml"), "a\n");
        std::os::unix::fs::symlink(".pnpm/dotenv@16.0.0/node_modules/dotenv", nm.join("dotenv"))
            .unwrap();
        // The same through a `node_modules` that is a link.
        let link = d.path().join("task/node_modules");
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(&nm, &link).unwrap();
        let w = Packages::take(std::slice::from_ref(&link));
        write(&nm.join(".pnpm/lock.yaml"), "b\n");
        write(
            &nm.join(".pnpm/left-pad@1.0.0/node_modules/left-pad/index.js"),
            "\n",
        );
        assert_eq!(w.changed(), None);
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(&real, "process.exit(0)\n");
        assert_eq!(
            w.changed(),
            Some(fs::canonicalize(&real).unwrap().as_path())
        );
    }
}
