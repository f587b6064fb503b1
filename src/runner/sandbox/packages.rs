//! The packages of the `node_modules` folders on a check's way to its packages, as they were
//! when the run started: a wall that reads no grader text (review 42, 110g-110h; review 43).
//!
//! A grader may preload or require a package by name with a spelling gate's reading of its
//! text does not find (`-"r" dotenv/config`). Node then loads it from a `node_modules` of the
//! task's folder, which the trials write: a trial that rewrites `dotenv/config.js` runs its
//! own code inside the check. Holding every such folder read-only would stop an agent's
//! `npm install`, so instead each check looks first ([`Packages::changed`]), and the run
//! looks once more at its end ([`Packages::changed_since_start`]). A change is
//! - a file or link of a package installed when the run started that was rewritten,
//!   replaced or removed, or a name added inside such a package (node tries `lib/main`
//!   before `lib/main.js`);
//! - a name added to a `node_modules` (or one that appears where there was none) that is a
//!   package node found there or in a `node_modules` above it when the run started: `x`,
//!   `x.js`, `x.json`, `x.node` or `@s/x` shadows the `x` it found (review 43, 04-06, 22);
//! - a folder on the way to a watched `node_modules` (or to the folder a linked one leads
//!   to) that is not the one it was: a trial that renames `app/` aside and builds another,
//!   then puts it back, leaves every recorded file as it was (review 43, 01, 03, 15).
//!
//! - a name added to the `.bin` of a watched `node_modules` (or one that appears) that a
//!   `.bin` there or above held when the run started, or that a check runs through a
//!   launcher (`npx x`): npx and npm's scripts run the first `.bin/x` on their way (review
//!   46, a17, a18, a18b; review 50). The names a `.bin` held are compared as any package
//!   file is (a link replaced or re-pointed is a new inode).
//!
//! - a name added to a `node_modules` that a package there at the start spells as a quoted
//!   word and that node would find from that package ([`asked_index`]): the optional `try {
//!   require("x") } catch {}` of a package such as `debug`, which loads the trial's `x`
//!   inside the check (review 46, a08). Any quoted word counts, in any file of the package
//!   but its documentation, and not only a `require("x")`: review 55 found fourteen
//!   spellings a reading of calls missed (`require.call(null, "x")`, an alias of `require`,
//!   `"../x"`, a `main` that leads out of the package, `import.meta.resolve`, a list of
//!   names in data). The literal start of a name built at run time (`` `eq-${p}` ``, `"eq-"
//!   + p`) counts for every name that starts so. Read once, the first time a new name
//!   appears; only the packages there at the start are read, so a new package's own
//!   dependencies are not. A name built at run time with no literal start
//!   (`String.fromCharCode(…)`) is not found. The cost: an honest install of a name that some package there
//!   writes as a string (`"debug"` as a log level) gets no verdict.
//!
//! - a name added to a `node_modules` (scoped, a dot name, a file, or in a `node_modules`
//!   that appears) that the plan does not let a trial install (`policy.sandbox.installs`,
//!   [`crate::model::Installs`]): by default none. A package there may load a name it
//!   builds at run time (`["eq", "color"].join("-")`, `String.fromCharCode`, a name read
//!   from data or the environment), which the reading above does not find; seven reviews
//!   found such spellings, so the plan names what an agent may install instead.
//!
//! A new package by a name the plan lets a trial install, and no package there writes, is
//! not a change (an agent installs a dependency), nor is the new `.bin` name its install
//! adds when no check runs it.
//!
//! What is compared is each path's type, mode, size, inode and change time (`ctime`, which a
//! process cannot set back: content written back as it was is still seen, also after the
//! last check). The folders that only hold packages (a `node_modules`, a scope `@x`, `.bin`,
//! pnpm's `.pnpm` and its entries) and the folders on the way are compared by type and inode
//! alone. The dot files and cache folders a package manager or a tool keeps at the top of a
//! `node_modules` (`.package-lock.json`, `.modules.yaml`, `.cache`, `.vite`) are left out: no
//! package by a name node resolves is there. A package linked in from elsewhere (an npm
//! `file:` dependency, a workspace) is not followed: it is the task's own code.

use std::collections::{BTreeSet, HashMap};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// Entries read at most beneath the watched `node_modules` folders; those past it are not
/// watched, which [`Packages::partial`] says.
pub const PACKAGE_ENTRIES: usize = 500_000;

/// The folders at the top of a `node_modules` where tools keep caches the check itself
/// writes (babel and eslint's `.cache`, vite's `.vite`, vitest's `.vitest`, the `.tmp` of
/// `tsc -b` in vite's templates).
const CACHES: [&str; 5] = [".cache", ".vite", ".vite-temp", ".vitest", ".tmp"];

/// What a path is, links not followed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Stamp {
    Missing,
    /// A folder of packages, or one on the way: its type and inode.
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
        // The whole mode: a folder made unreadable hides what it holds (review 44, n03).
        Ok(m) if holder => Stamp::Holder {
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

/// A `node_modules` path: the names it held at the start (none where it was missing) and
/// the packages node found there or above it then, by the name node resolves ([`stem`]).
#[derive(Debug)]
struct Shelf {
    path: PathBuf,
    /// Where a linked `node_modules` sits (node looks above it there too).
    alias: Option<PathBuf>,
    existed: bool,
    listed: BTreeSet<OsString>,
    /// The names node found, one set per `node_modules` there and above, each set shared by
    /// every shelf below it (thousands of folders below one `node_modules` hold one copy).
    known: Vec<std::sync::Arc<BTreeSet<OsString>>>,
}

impl Shelf {
    fn new(path: PathBuf, alias: Option<PathBuf>, existed: bool) -> Shelf {
        Shelf {
            path,
            alias,
            existed,
            listed: BTreeSet::new(),
            known: Vec::new(),
        }
    }

    /// Whether node found a package by this name there or above when the run started.
    fn knows(&self, name: &OsStr) -> bool {
        self.known.iter().any(|k| k.contains(name))
    }

    /// Whether a new `name` here is in front of a package node found: the package's own
    /// name or the name node resolves (`x` for `x.js`, `x.json`, `x.node`), or, for a file or
    /// a link to one, that name and any extension (node tries `x` and `x` with each
    /// extension it loads before the folder `x`, and a hook adds its own: `.cjs`, `.ts`;
    /// review 46, a01-a03, a28). A new folder `x.js` is not in front of `x`.
    fn shadowed_by(&self, name: &OsStr, folder: bool) -> bool {
        let bytes = name.as_bytes();
        self.knows(name)
            || self.knows(&stem(name))
            || (!folder
                && (bytes.iter().enumerate()).any(|(i, b)| {
                    *b == b'.' && i > 0 && self.knows(OsStr::from_bytes(&bytes[..i]))
                }))
    }

    /// The first name in the folder now that was not there at the start and shadows a
    /// package node found then; for a path that was missing, the path itself when it is now
    /// a link or a file (where node looks first, which gate does not read).
    fn shadowing(&self, asks: &dyn Fn(&Shelf, &OsStr) -> bool, any: bool) -> Option<PathBuf> {
        if !self.existed {
            match fs::symlink_metadata(&self.path) {
                Err(_) => return None,
                Ok(m) if !m.is_dir() => return Some(self.path.clone()),
                Ok(_) => {}
            }
        }
        // A folder gate cannot read whole (its mode changed, more names than it reads) may
        // hide one.
        let Some(now) = listing(&self.path, any) else {
            return Some(self.path.clone());
        };
        now.into_iter()
            .filter(|n| !self.listed.contains(n))
            .map(|n| self.path.join(n))
            .find(|p| {
                let folder = fs::metadata(p).is_ok_and(|m| m.is_dir());
                p.file_name().zip(p.parent()).is_some_and(|(name, at)| {
                    // `@s/x`: the scope is part of the name node resolves.
                    let name = match at.file_name() {
                        Some(scope) if scope.as_bytes().starts_with(b"@") => {
                            let mut full = scope.to_os_string();
                            full.push("/");
                            full.push(name);
                            full
                        }
                        _ => name.to_os_string(),
                    };
                    self.shadowed_by(&name, folder) || asks(self, &name)
                })
            })
    }
}

/// The `.bin` of a watched `node_modules`: the names it held at the start, and the names a
/// new entry may not take ([`Bin::shadowing`]).
///
/// Or pnpm's store, `.pnpm` ([`Bin::store`]), whose new names must be a listed package's
/// (`zod@3.22.4`, `@types+node@20.1.0`) where the plan does not say `any`.
#[derive(Debug)]
struct Bin {
    path: PathBuf,
    /// Whether this is pnpm's `.pnpm` rather than a `.bin`.
    store: bool,
    listed: BTreeSet<OsString>,
    /// The names in the `.bin` of each `node_modules` above it when the run started (shared
    /// by every `.bin` below one), and the names the checks run through a launcher.
    known: Vec<std::sync::Arc<BTreeSet<OsString>>>,
}

impl Bin {
    /// The first name in the `.bin` now that was not there at the start and that a check
    /// may run: a trial's program in front of the one the check ran, or of one it would
    /// have fetched (`npx x` with no `x` installed). Compared at every look: a `.bin` made
    /// after the start is watched by no notice.
    ///
    /// Or one that no package the plan lets a trial install put there
    /// (`policy.sandbox.installs`; the second of the pair is then true): node loads a file of
    /// a `.bin` by its name too (`require(".bin/x")`, review 58, 13).
    fn shadowing(&self, installs: &crate::model::Installs) -> Option<(PathBuf, bool)> {
        // Read first: most of these are missing, one call each at every look.
        let list = match fs::read_dir(&self.path) {
            Ok(list) => list,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            // A `.bin` gate cannot read (or a file by that name) may hide one.
            Err(_) => return Some((self.path.clone(), false)),
        };
        // Not a folder (a link, or a file node loads as `.bin` or `.pnpm`: review 59, 11),
        // where the plan does not say `any`.
        if *installs != crate::model::Installs::Any
            && fs::symlink_metadata(&self.path).is_ok_and(|m| !m.is_dir())
        {
            return Some((self.path.clone(), true));
        }
        for n in list.flatten().map(|e| e.file_name()) {
            if self.listed.contains(&n) {
                continue;
            }
            if self.known.iter().any(|k| k.contains(&n)) {
                return Some((self.path.join(n), false));
            }
            if !self.installed(&n, installs) {
                return Some((self.path.join(n), true));
            }
        }
        None
    }

    /// Whether the new `name` here is one a package the plan lets a trial install puts
    /// there. In a `.bin`: a link into that package's folder (npm, yarn), which is not one
    /// of the folders above this `node_modules` (a listed name linked to `..` holds
    /// everything). A file is not (node loads a `.bin` file by its name as code, whatever
    /// it says: review 59, 01; pnpm writes its shims as files, so pnpm wants `any`). In
    /// `.pnpm`: a real folder named for a listed package and its version (`zod@3.22.4`,
    /// `@types+node@20.1.0`). Any name where the plan says `any`.
    fn installed(&self, name: &OsStr, installs: &crate::model::Installs) -> bool {
        use crate::model::Installs;
        let names = match installs {
            Installs::Any => return true,
            Installs::None => return false,
            Installs::Names(names) => names,
        };
        let Some(shelf) = self.path.parent() else {
            return false;
        };
        let entry = self.path.join(name);
        let Ok(meta) = fs::symlink_metadata(&entry) else {
            return false;
        };
        if self.store {
            let name = name.as_bytes();
            return meta.is_dir()
                && names.iter().any(|n| {
                    let n = n.replace('/', "+");
                    name.len() > n.len() + 1
                        && name.starts_with(n.as_bytes())
                        && name[n.len()] == b'@'
                });
        }
        if !meta.file_type().is_symlink() {
            return false;
        }
        let (Ok(to), Ok(top)) = (fs::canonicalize(&entry), fs::canonicalize(shelf)) else {
            return false;
        };
        names.iter().any(|n| {
            fs::canonicalize(shelf.join(n))
                .is_ok_and(|pkg| !top.starts_with(&pkg) && to.starts_with(pkg))
        })
    }
}

/// The names in folder `d` (all of them, dot names too), empty where it cannot be read.
fn names_in(d: &Path) -> BTreeSet<OsString> {
    fs::read_dir(d)
        .map(|l| l.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

/// What a watch descriptor watches ([`Notices`]).
#[derive(Debug, Clone)]
enum Watched {
    /// A folder of packages; for a `node_modules` or a scope in one, its [`Shelf`] and the
    /// scope's prefix (`@s/`), by which a name created there is read.
    Holder(Option<(usize, OsString)>),
    /// The folder where a missing `node_modules` would appear, or the one above it.
    Parent(PathBuf),
    /// A folder of a package.
    Package,
    /// A folder on the way, for its own rename or removal only.
    Way,
}

/// What may have changed since the last full comparison: the kernel's word (inotify) on
/// every watched folder, so that a check after a trial that wrote none of them costs one
/// `read`, not one `lstat` per path.
#[derive(Debug, Default)]
struct Notices {
    /// The inotify descriptor, when every folder could be watched.
    fd: Option<std::os::fd::OwnedFd>,
    /// What each watch descriptor watches.
    watches: HashMap<i32, Watched>,
    /// Something happened since the last full comparison found nothing.
    dirty: bool,
    /// The missing `node_modules` ([`Shelf`] by index) watched since they appeared, by the
    /// device and inode of the folder watched.
    appeared: HashMap<usize, (u64, u64)>,
    /// The folders on the way (by index) that could not be watched: compared at every look.
    unwatched: Vec<usize>,
    /// The folders watched for a missing `node_modules` ([`Watched::Parent`]), by the device
    /// and inode of the folder watched: one removed and made again is watched again.
    armed: HashMap<PathBuf, Option<(u64, u64)>>,
    /// The scope folders (`@s`) made in a watched `node_modules` during the run, watched
    /// since a look found them, by the device and inode of the folder watched: a name made
    /// in one later is reported (review 60, 01-04).
    scopes: HashMap<PathBuf, (u64, u64)>,
    /// The watch descriptors of the folders on the way, whatever else they are watched for:
    /// their own rename or removal is always a change.
    way: std::collections::HashSet<i32>,
}

/// The device and inode of the folder `p` leads to, if it is one.
fn key_of(p: &Path) -> Option<(u64, u64)> {
    fs::metadata(p)
        .ok()
        .filter(|m| m.is_dir())
        .map(|m| (m.dev(), m.ino()))
}

/// What a watched folder reports.
fn watch_flags() -> rustix::fs::inotify::WatchFlags {
    use rustix::fs::inotify::WatchFlags;
    WatchFlags::MODIFY
        | WatchFlags::ATTRIB
        | WatchFlags::CREATE
        | WatchFlags::DELETE
        | WatchFlags::MOVED_FROM
        | WatchFlags::MOVED_TO
        | WatchFlags::DELETE_SELF
        | WatchFlags::MOVE_SELF
        | WatchFlags::DONT_FOLLOW
        | WatchFlags::ONLYDIR
}

/// The watched packages ([`Packages::take`]).
#[derive(Debug, Default)]
pub struct Packages {
    /// Every path beneath the watched folders, with whether it holds packages and its stamp.
    entries: Vec<(PathBuf, bool, Stamp)>,
    /// The folders above each watched `node_modules` (and above the folder a linked one
    /// leads to), by type and inode: compared at every look.
    way: Vec<(PathBuf, Stamp)>,
    /// Every `node_modules` watched, found beneath one, or missing at the start.
    shelves: Vec<Shelf>,
    /// The kernel's notices of changes in the watched folders.
    notices: std::sync::Mutex<Notices>,
    /// The first folder whose entries past [`PACKAGE_ENTRIES`] are not watched.
    partial: Option<PathBuf>,
    /// Each watched `node_modules` that is a link, with where it led at the start (`None`:
    /// nowhere). Compared at every look: a link on its way (`deps/current -> v1`) or the
    /// folder a dangling one names may lie where no watch reports (review 46, a29, a30).
    links: Vec<(PathBuf, Option<PathBuf>)>,
    /// The `.bin` of every `node_modules` watched, where a name a check runs could be
    /// added ([`Bin`]).
    bins: Vec<Bin>,
    /// What the packages there at the start ask for, read the first time a new name appears.
    asked: std::sync::OnceLock<Asked>,
    /// Each new path found to be a name asked for, with the file that asks for it, or (`None`)
    /// a name the plan does not let a trial install.
    asked_found: std::sync::Mutex<HashMap<PathBuf, Option<PathBuf>>>,
    /// The new names a trial may add (`policy.sandbox.installs`).
    installs: crate::model::Installs,
    /// Where the plan does not say `any`: the `.bin` and `.pnpm` paths of the `node_modules`
    /// below the watched ones that were missing at the start ([`Packages::appeared_holder`]).
    absent: Vec<PathBuf>,
}

/// The names the packages there when the run started spell ([`asked_index`]).
#[derive(Debug, Default)]
struct Asked {
    /// The files read, in order; [`Asked::names`] and [`Asked::prefixes`] point into it.
    files: Vec<PathBuf>,
    /// Each name a quoted word spells, with the files that spell it.
    names: HashMap<OsString, Vec<u32>>,
    /// A file past [`ASKED_BYTES`] that was not read, if any: every new name then counts.
    unread: Option<PathBuf>,
    /// The literal start of each name built at run time (`` `eq-${p}` ``, `"eq-" + p`,
    /// `"eq-".concat(p)`: a plugin loader), with the files that build it: every name that
    /// starts so is asked for (review 54, 04; review 55, 04, 17).
    prefixes: HashMap<Vec<u8>, Vec<u32>>,
}

/// Bytes of package code read at most for [`Asked`]; past them every new name is a change.
const ASKED_BYTES: u64 = 1 << 30;

/// A package file larger than this is not read for [`Asked`] (a bundle, a source map):
/// counted as unread.
const ASKED_FILE_BYTES: u64 = 64 << 20;

/// Whether [`asked_index`] reads `p`: every file of a package but those node never loads
/// and no package reads for names (documentation, declarations, source maps, images and
/// fonts, by their extension), and those of its `__tests__`, `__benchmarks__`,
/// `__fixtures__`, `__mocks__` and `.github` folders, which loading a package does not run
/// (review 56, H13: a benchmark's strings refused honest installs; a `test/` or `docs/`
/// folder is read, review 57). Code in any other extension counts, whatever the file's name
/// (`history.js`, an extensionless `README`): node runs an unknown extension as CommonJS,
/// and a loader may read names from data (review 55, 08, 12, 13; review 56, 43).
fn asks_in(p: &Path) -> bool {
    const DOCS: &[&str] = &[
        "md", "markdown", "mdx", "map", "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "woff",
        "woff2", "ttf", "eot", "otf",
    ];
    // Only the names no package's code loads by convention: a `test/` or `docs/` folder may
    // hold code the package requires (review 57, testdir, docsdir, exportscond).
    const ASIDE: &[&str] = &[
        "__tests__",
        "__benchmarks__",
        "__fixtures__",
        "__mocks__",
        ".github",
    ];
    let name = p.file_name().map(OsStr::as_bytes).unwrap_or_default();
    let lower = name.to_ascii_lowercase();
    let types = [b".d.ts".as_slice(), b".d.mts", b".d.cts"]
        .iter()
        .any(|x| lower.ends_with(x));
    let doc_ext = p.extension().is_some_and(|e| {
        let e = e.as_bytes().to_ascii_lowercase();
        DOCS.iter().any(|d| e == d.as_bytes())
    });
    // The folders inside the package (below `node_modules/x` or `node_modules/@s/x`).
    let parts: Vec<&OsStr> = p.iter().collect();
    let inside = parts
        .iter()
        .rposition(|c| *c == "node_modules")
        .map_or(0, |k| {
            k + if parts
                .get(k + 1)
                .is_some_and(|c| c.as_bytes().starts_with(b"@"))
            {
                3
            } else {
                2
            }
        });
    let aside = (parts
        .get(inside..parts.len().saturating_sub(1))
        .unwrap_or_default()
        .iter())
    .any(|c| ASIDE.iter().any(|a| *c == *a));
    !types && !doc_ext && !aside
}

/// The text of a package's `package.json` that may name a package: all but the fields
/// that describe it to people and to npm (`devDependencies`, which a package's users never
/// install, `keywords`, `scripts`, `description`, its people and links, npm's own `_`
/// fields; review 56, H13: `devDependencies` refused honest installs).
fn manifest_text(text: &[u8]) -> Vec<u8> {
    const PEOPLE: &[&str] = &[
        "devDependencies",
        "keywords",
        "scripts",
        "description",
        "author",
        "contributors",
        "maintainers",
        "repository",
        "bugs",
        "homepage",
        "license",
        "licenses",
        "funding",
        "engines",
        "publishConfig",
        "directories",
        "files",
        "man",
        "os",
        "cpu",
        "readme",
        "gitHead",
        "types",
        "typings",
        "typesVersions",
        // A package manager's pins for the package's own install (review 56, H13).
        "resolutions",
        "overrides",
        "packageManager",
        "volta",
        // The settings of the tools that build and test the package itself, read by no
        // one who loads it (review 56, H13: minipass's `"prettier"`).
        "prettier",
        "eslintConfig",
        "eslintIgnore",
        "stylelint",
        "jest",
        "ava",
        "tap",
        "mocha",
        "c8",
        "nyc",
        "xo",
        "standard",
        "tshy",
        "tsd",
        "release",
        "husky",
        "lint-staged",
        "commitlint",
        "size-limit",
    ];
    match serde_json::from_slice::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(mut o)) => {
            o.retain(|k, _| !PEOPLE.contains(&k.as_str()) && !k.starts_with('_'));
            serde_json::to_vec(&o).unwrap_or_default()
        }
        _ => text.to_vec(),
    }
}

/// The quoted words of `text`: each run of characters a package specifier may hold
/// (`@`, `/`, `.`, `-`, `_`, `~`, `!`, `:`, `#`, `+`, a template's `${…}`, letters and
/// digits) that opens right after a quote (`"`, `'`, `` ` ``) and closes on one, escaped or
/// not (`\"x\"` in an `eval`'s text). A message with a space is no word; a word
/// is whatever the quotes hold, whatever code is around them (review 55: `require.call`,
/// `require?.(`, `req("x")`, `_load("x")`, `import.meta.resolve("x")`, `register("x")`,
/// a `//` comment inside the call, a list of names in data).
fn quoted_words(text: &[u8]) -> Vec<(std::borrow::Cow<'_, [u8]>, bool)> {
    let word = |b: u8| b.is_ascii_alphanumeric() || b"@/.-_~!:#+${}".contains(&b);
    let quote = |b: u8| matches!(b, b'"' | b'\'' | b'`');
    // The word whose opening quote is at `i`, and the index after its closing quote.
    let at = |i: usize| -> Option<(&[u8], usize)> {
        if !text.get(i).is_some_and(|b| quote(*b)) {
            return None;
        }
        let start = i + 1;
        let mut j = start;
        while j < text.len() && word(text[j]) {
            j += 1;
        }
        let escaped = text.get(j) == Some(&b'\\') && text.get(j + 1).is_some_and(|b| quote(*b));
        (j > start && (text.get(j).is_some_and(|b| quote(*b)) || escaped))
            .then(|| (&text[start..j], j + usize::from(escaped) + 1))
    };
    let blank = |mut k: usize| {
        while text.get(k).is_some_and(u8::is_ascii_whitespace) {
            k += 1;
        }
        k
    };
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let Some((first, mut end)) = at(i) else {
            i = memchr::memchr3(b'"', b'\'', b'`', &text[i + 1..])
                .map_or(text.len(), |k| i + 1 + k);
            continue;
        };
        // Literals joined at once are one name: `"eq" + "-" + "color"`,
        // `"eq".concat("-color")` (review 56, 40). One that goes on with a value built at run
        // time (`"eq" + sep`, `"eq".concat(p)`) is the start of a name when it opens a call's
        // argument (`require("eq" + sep + …)`).
        let mut whole = std::borrow::Cow::Borrowed(first);
        let mut open = false;
        loop {
            let k = blank(end);
            let next = if text.get(k) == Some(&b'+') {
                blank(k + 1)
            } else if text[k.min(text.len())..].starts_with(b".concat(") {
                blank(k + 8)
            } else {
                break;
            };
            match at(next) {
                Some((more, e)) => {
                    whole.to_mut().extend_from_slice(more);
                    end = if text[k..].starts_with(b".concat(") {
                        let c = blank(e);
                        if text.get(c) == Some(&b')') { c + 1 } else { e }
                    } else {
                        e
                    };
                }
                None => {
                    let before = text[..i].iter().rev().find(|b| !b.is_ascii_whitespace());
                    open = before == Some(&b'(');
                    break;
                }
            }
        }
        out.push((whole, open));
        i = end;
    }
    out
}

/// The package name and name start a quoted `word` spells, read as node reads a specifier:
/// its first part (`x` of `x/lib/y`, `@s/x` of `@s/x/y`) and that part's stem (`x` of
/// `x.js`), or the first part after the `../` that climb out of a package (`"../x"`: a
/// sibling in the same `node_modules`, review 55, 05); not a path (`./x`, `/x`,
/// `application/x`'s second part). A start: a part built at run time (`eq-${p}`,
/// `@s/${p}`), and a word that ends where a name goes on (`eq-`, `@s/`, `plugin.`).
fn spelled(word: &[u8], mut name: impl FnMut(&[u8]), mut prefix: impl FnMut(Vec<u8>)) {
    let mut rest = word;
    if rest.starts_with(b"../") {
        while let Some(r) = rest
            .strip_prefix(b"../")
            .or_else(|| rest.strip_prefix(b"./"))
        {
            rest = r;
        }
    } else if rest.starts_with(b".") || rest.starts_with(b"/") {
        return;
    }
    let mut parts = rest.split(|b| *b == b'/');
    let first = parts.next().unwrap_or_default();
    let (scope, part) = if first.starts_with(b"@") {
        (Some(first), parts.next())
    } else {
        (None, Some(first))
    };
    let join = |p: &[u8]| match scope {
        Some(s) => [s, b"/", p].concat(),
        None => p.to_vec(),
    };
    let Some(part) = part else { return };
    if let Some(at) = memchr::memmem::find(part, b"${") {
        // `eq-${p}`, or `@s/${p}` with an empty start.
        if at > 0 || scope.is_some() {
            prefix(join(&part[..at]));
        }
        return;
    }
    if part.is_empty() {
        // `"@s/" + p`: the word ends after a scope.
        if scope.is_some() {
            prefix(join(b""));
        }
        return;
    }
    if part == b"." || part == b".." {
        return;
    }
    let full = join(part);
    let last = rest.len() == full.len();
    if last
        && part.ends_with(b"-") | part.ends_with(b"_") | part.ends_with(b".")
        && part.iter().any(u8::is_ascii_alphanumeric)
    {
        prefix(full.clone());
    }
    name(&full);
    let stem = stem(OsStr::from_bytes(&full));
    if stem.as_bytes() != full.as_slice() {
        name(stem.as_bytes());
    }
}

/// What `files` spell: every name a quoted word in them names ([`quoted_words`],
/// [`spelled`]). A package asks for another by a name in many spellings (a `require` in any
/// position, an alias of `require`, a list of plugin names in data, a relative `../x`, a
/// `main` that leads out of the package, an `eval`'s text): reading calls was a net with
/// holes (review 55, fourteen of them), so a name spelled as a word anywhere counts, and
/// the honest install of a name some package there writes as a string (`"debug"`, a log
/// level) gets no verdict. At most [`ASKED_BYTES`] read.
fn asked_index<'a>(files: impl Iterator<Item = &'a Path>) -> Asked {
    let mut out = Asked::default();
    let mut read = 0u64;
    for f in files {
        // Folders and links to them are no code (a package's folder has no extension).
        let Some(m) = fs::metadata(f).ok().filter(|m| m.is_file()) else {
            continue;
        };
        if m.len() > ASKED_FILE_BYTES || read + m.len() > ASKED_BYTES {
            out.unread.get_or_insert_with(|| f.to_path_buf());
            continue;
        }
        let Ok(text) = fs::read(f) else {
            out.unread.get_or_insert_with(|| f.to_path_buf());
            continue;
        };
        read += text.len() as u64;
        let at = u32::try_from(out.files.len()).unwrap_or(u32::MAX);
        out.files.push(f.to_path_buf());
        let text = if f.file_name().is_some_and(|n| n == "package.json") {
            manifest_text(&text)
        } else {
            text
        };
        let (names, prefixes) = (&mut out.names, &mut out.prefixes);
        let add = |askers: &mut Vec<u32>| {
            if askers.last() != Some(&at) {
                askers.push(at);
            }
        };
        for (w, open) in quoted_words(&text) {
            if open && w.len() > 1 && w[0].is_ascii_alphanumeric() | (w[0] == b'@') {
                add(prefixes.entry(w.to_vec()).or_default());
            }
            spelled(
                &w,
                |n| {
                    add(names
                        .entry(OsStr::from_bytes(n).to_os_string())
                        .or_default())
                },
                |p| add(prefixes.entry(p).or_default()),
            );
        }
    }
    out
}

impl Packages {
    /// Watch the `node_modules` at each of `paths` as it is now: its packages, or, where
    /// there is none, the names of the packages in the `node_modules` of the folders above;
    /// and the `.bin` of each, where no name of `launched` (the names the checks run through
    /// a launcher) nor one a `.bin` above held may be added.
    pub fn take(
        paths: &[PathBuf],
        launched: &[String],
        installs: crate::model::Installs,
    ) -> Packages {
        let any = installs == crate::model::Installs::Any;
        let mut out = Packages {
            installs,
            ..Packages::default()
        };
        let mut tops = Vec::new();
        let mut way = std::collections::HashSet::new();
        for p in paths {
            match fs::symlink_metadata(p) {
                Ok(m) if m.is_dir() => tops.push((p.clone(), None)),
                // A link or a file by that name: what it is (a trial re-pointing it is a
                // change), and the folder a link leads to, walked as the `node_modules`.
                Ok(m) => {
                    out.entries.push((p.clone(), false, stamp(p, false)));
                    out.on_the_way(p, &mut way);
                    if m.file_type().is_symlink() {
                        let to = fs::canonicalize(p).ok();
                        out.links.push((p.clone(), to.clone()));
                        if let Some(to) = to.filter(|t| t.is_dir()) {
                            tops.push((to, Some(p.clone())));
                        }
                    }
                }
                // Not its folders on the way: any of them may be the agent's to remove or
                // rename (review 44, h12-h19); only a `node_modules` there counts.
                Err(_) => {
                    out.shelves.push(Shelf::new(p.clone(), None, false));
                }
            }
        }
        for (top, alias) in &tops {
            out.on_the_way(top, &mut way);
            out.entries.push((top.clone(), true, stamp(top, true)));
            out.walk(top, alias.clone());
        }
        // What node found at each shelf and above it, each folder listed once: the names
        // and the names node resolves them by.
        let mut seen: HashMap<PathBuf, std::sync::Arc<BTreeSet<OsString>>> = HashMap::new();
        let mut stems_at = |d: &Path| {
            (seen.entry(d.to_path_buf()))
                .or_insert_with(|| {
                    let names = listing(d, any).unwrap_or_default();
                    let stems = names.iter().map(|n| stem(n)).collect::<Vec<_>>();
                    std::sync::Arc::new(names.into_iter().chain(stems).collect())
                })
                .clone()
        };
        let global = global_folders();
        for shelf in &mut out.shelves {
            let above = (shelf.path.parent().into_iter())
                .chain(shelf.alias.as_deref().and_then(Path::parent))
                .flat_map(Path::ancestors)
                .map(|d| d.join("node_modules"))
                .chain(global.iter().cloned());
            for d in above {
                let names = stems_at(&d);
                if !names.is_empty() {
                    shelf.known.push(names);
                }
            }
            if shelf.existed {
                shelf.listed = listing(&shelf.path, any).unwrap_or_default();
            }
        }
        // Each `.bin`, and what may not be added there: the launched names and the names of
        // the `.bin` folders above (npm's scripts have every one on their `PATH`).
        let launched: std::sync::Arc<BTreeSet<OsString>> =
            std::sync::Arc::new(launched.iter().map(OsString::from).collect());
        let mut bins_at: HashMap<PathBuf, std::sync::Arc<BTreeSet<OsString>>> = HashMap::new();
        // Only the `node_modules` watched for a check, not those inside a package: npx and
        // npm's scripts look in `<folder>/node_modules/.bin` of the folders on their way.
        // A set: the shelves and the paths are one per folder below the check's, thousands
        // of each (rev50c: a list's `contains` made a task of 20,000 folders take 20 s).
        let given: std::collections::HashSet<&Path> = paths.iter().map(PathBuf::as_path).collect();
        // Where the plan does not say `any`, every `node_modules` found: a new name in any
        // `.bin` or `.pnpm` is a package node loads by that name (review 59, 38).
        let watched = out
            .shelves
            .iter()
            .filter(|s| !any || s.alias.is_some() || given.contains(s.path.as_path()));
        let mut stores = Vec::new();
        let mut absent = Vec::new();
        for shelf in watched {
            let top = shelf.alias.is_some() || given.contains(shelf.path.as_path());
            // Below the watched ones, only a `.bin` or `.pnpm` there at the start is looked
            // at every time; one that appears is a change, found when the kernel reports
            // its folder's new name (review 59, 38; one look each for thousands of nested
            // `node_modules` cost 20 ms a check).
            let here = shelf.path.join(".bin");
            let store = shelf.path.join(".pnpm");
            let (bin_there, store_there) = (
                fs::symlink_metadata(&here).is_ok(),
                fs::symlink_metadata(&store).is_ok(),
            );
            if !top && !bin_there {
                absent.push(here.clone());
            }
            if !top && !store_there {
                absent.push(store.clone());
            }
            if !any && (top || store_there) {
                stores.push(Bin {
                    listed: names_in(&store),
                    path: store,
                    store: true,
                    known: Vec::new(),
                });
            }
            if !top && !bin_there {
                continue;
            }
            let mut known = vec![launched.clone()];
            let above = (shelf.path.parent().into_iter())
                .chain(shelf.alias.as_deref().and_then(Path::parent))
                .flat_map(Path::ancestors)
                .skip(1)
                .map(|d| d.join("node_modules").join(".bin"));
            for d in above {
                let names = (bins_at.entry(d.clone()))
                    .or_insert_with(|| std::sync::Arc::new(names_in(&d)))
                    .clone();
                if !names.is_empty() {
                    known.push(names);
                }
            }
            // Where a trial may install any package and no name is known, a new name here
            // is an install's.
            if known.iter().all(|k| k.is_empty()) && any {
                continue;
            }
            let listed = names_in(&here);
            out.bins.push(Bin {
                path: here,
                store: false,
                listed,
                known,
            });
        }
        out.bins.extend(stores);
        out.absent = absent;
        *out.notices.get_mut().unwrap_or_else(|e| e.into_inner()) = out.notify();
        out
    }

    /// Whether a new package `name` in `shelf` may not be added: one the plan does not let a
    /// trial install (`policy.sandbox.installs`), or one a package there asks for
    /// ([`Packages::asks`]). A new scope folder (`@s`) is neither: the names in it are each
    /// read as `@s/x`.
    fn refused_new(&self, shelf: &Shelf, entry: &OsStr) -> bool {
        let bytes = entry.as_bytes();
        let scope = bytes.starts_with(b"@") && !bytes.contains(&b'/');
        let mut at = shelf.path.clone();
        at.push(entry);
        // A package is a folder (or a link to one): a file `chart.js` is the `chart` node
        // resolves, whatever the plan lists (review 58).
        let listed = entry.to_str().is_some_and(|n| self.installs.allows(n))
            && (self.installs == crate::model::Installs::Any
                || fs::metadata(&at).is_ok_and(|m| m.is_dir()));
        // A new scope that is a link leads where no watch reports (review 60, 03).
        let linked_scope = scope
            && self.installs != crate::model::Installs::Any
            && fs::symlink_metadata(&at).is_ok_and(|m| !m.is_dir());
        if (!scope && !listed) || linked_scope {
            (self.asked_found.lock().unwrap_or_else(|e| e.into_inner())).insert(at, None);
            return true;
        }
        self.asks(shelf, entry)
    }

    /// Whether a new `name` in `shelf` is one a package there at the start (one node would
    /// look in `shelf` for: inside the folder that holds it) asks for; recorded with the
    /// file that asks. Read once, at the first new name.
    fn asks(&self, shelf: &Shelf, entry: &OsStr) -> bool {
        // `x.js`, `x.json`, `x.node` is the `x` node resolves (review 54, 09).
        let name = &stem(entry);
        let asked = self.asked.get_or_init(|| {
            let recorded = (self.entries.iter())
                .filter(|(p, holder, st)| {
                    !holder && matches!(st, Stamp::Entry { .. }) && asks_in(p)
                })
                .map(|(p, _, _)| p.clone());
            // A `node_modules` held read-only is on no watched shelf's way: node looks in
            // a held one's folders above for what its packages ask for, and those are held
            // or watched whole as missing (an appearing `node_modules` is a change there).
            let files: Vec<PathBuf> = recorded.collect();
            asked_index(files.iter().map(PathBuf::as_path))
        });
        let tops =
            (shelf.path.parent().into_iter()).chain(shelf.alias.as_deref().and_then(Path::parent));
        let within =
            |f: &Path| tops.clone().any(|t| f.starts_with(t)) || f.starts_with(&shelf.path);
        let starts = (1..name.len()).filter_map(|k| asked.prefixes.get(&name.as_bytes()[..k]));
        let asker = match &asked.unread {
            Some(unread) => Some(unread.clone()),
            None => (asked.names.get(name).into_iter().chain(starts).flatten())
                .map(|k| &asked.files[*k as usize])
                .find(|f| within(f))
                .cloned(),
        };
        let Some(asker) = asker else { return false };
        let mut at = shelf.path.clone();
        at.push(entry);
        (self.asked_found.lock().unwrap_or_else(|e| e.into_inner())).insert(at, Some(asker));
        true
    }

    /// Why a check may not run, or a run publish no verdict, when `path` is
    /// [`Packages::changed`] ([`refusal`]; a name a package asks for says which).
    pub fn refusal(&self, path: &Path, check: bool) -> String {
        let found = self.asked_found.lock().unwrap_or_else(|e| e.into_inner());
        let Some(asker) = found.get(path) else {
            return refusal(path, check);
        };
        let Some(asker) = asker else {
            return format!(
                "`{}` appeared during the run (a trial installed a package by a new name where \
                 a node check loads its packages, and a package there may load a name it \
                 builds at run time); {}no verdict is published (name the packages an agent may \
                 install in `policy.sandbox.installs`, or keep a node grader's packages in its \
                 own `node_modules`, outside the folders the trials write)",
                path.display(),
                if check {
                    "the check was not run and "
                } else {
                    ""
                }
            );
        };
        let read = self.asked.get().and_then(|a| a.unread.as_deref()) == Some(asker.as_path());
        format!(
            "`{}` appeared during the run (a trial did it): {}, and node would find it \
             there; {}no verdict is published (an agent must not install a package whose name \
             the packages a node grader loads write; keep a node grader's packages in its own \
             `node_modules`, outside the folders the trials write)",
            path.display(),
            if read {
                format!(
                    "the packages there at the start may ask for it (`{}` and what follows \
                     it were not read: over {} MiB of package code, or a file over {} MiB)",
                    asker.display(),
                    ASKED_BYTES >> 20,
                    ASKED_FILE_BYTES >> 20
                )
            } else {
                format!(
                    "`{}` writes that name as a string, and a package may load a name so \
                     spelled in ways no reading of its code tells",
                    asker.display()
                )
            },
            if check {
                "the check was not run and "
            } else {
                ""
            }
        )
    }

    /// Record the folders above `p`, by type and inode (once each: `seen`).
    fn on_the_way(&mut self, p: &Path, seen: &mut std::collections::HashSet<PathBuf>) {
        for d in p.ancestors().skip(1) {
            if !seen.insert(d.to_path_buf()) {
                // Its own folders above were recorded with it.
                break;
            }
            self.way.push((d.to_path_buf(), stamp(d, true)));
        }
    }

    /// Watch every recorded folder with inotify, and the folder of each missing
    /// `node_modules`; without it (no descriptor, the user's watches used up), every look
    /// compares every path.
    fn notify(&self) -> Notices {
        use rustix::fs::inotify::{CreateFlags, add_watch, init};
        let Ok(fd) = init(CreateFlags::CLOEXEC | CreateFlags::NONBLOCK) else {
            return Notices::default();
        };
        let what = watch_flags();
        let mut watches = HashMap::new();
        let shelves: HashMap<&Path, usize> = (self.shelves.iter().enumerate())
            .map(|(i, s)| (s.path.as_path(), i))
            .collect();
        let shelf_of = |p: &Path| shelves.get(p).copied();
        for (p, holder, stamp) in &self.entries {
            let watched = match stamp {
                Stamp::Holder { mode, .. } if mode & libc::S_IFMT == libc::S_IFDIR => {
                    let name = p.file_name().unwrap_or_default();
                    let scope = name.as_bytes().starts_with(b"@");
                    Watched::Holder(match (shelf_of(p), scope, p.parent().and_then(shelf_of)) {
                        (Some(i), _, _) => Some((i, OsString::new())),
                        (None, true, Some(i)) => {
                            let mut prefix = name.to_os_string();
                            prefix.push("/");
                            Some((i, prefix))
                        }
                        _ => None,
                    })
                }
                Stamp::Entry { mode, .. } if mode & libc::S_IFMT == libc::S_IFDIR => {
                    debug_assert!(!holder);
                    Watched::Package
                }
                _ => continue,
            };
            let Ok(wd) = add_watch(&fd, p.as_path(), what) else {
                return Notices::default();
            };
            watches.insert(wd, watched);
        }
        // Added to what a folder watched already reports (a watch's flags are otherwise
        // replaced), which keeps what it is.
        let add = rustix::fs::inotify::WatchFlags::MASK_ADD;
        let mut armed = HashMap::new();
        for shelf in self.shelves.iter().filter(|s| !s.existed) {
            let Some(parent) = shelf.path.parent() else {
                continue;
            };
            let Ok(wd) = add_watch(&fd, parent, what | add) else {
                return Notices::default();
            };
            watches
                .entry(wd)
                .or_insert_with(|| Watched::Parent(parent.to_path_buf()));
            armed.insert(parent.to_path_buf(), key_of(parent));
            // And the folder above it, where a folder built in its place would appear
            // (review 44, n14: `src` renamed aside, another made with a `node_modules`).
            if let Some(above) = parent.parent()
                && let Ok(wd) = add_watch(&fd, above, what | add)
            {
                watches
                    .entry(wd)
                    .or_insert_with(|| Watched::Parent(above.to_path_buf()));
                armed.insert(above.to_path_buf(), key_of(above));
            }
        }
        // A folder on the way renamed or removed is reported where it is watched; the others
        // (one gate may not read) are looked at every time.
        let own = rustix::fs::inotify::WatchFlags::MOVE_SELF
            | rustix::fs::inotify::WatchFlags::DELETE_SELF
            | rustix::fs::inotify::WatchFlags::DONT_FOLLOW
            | add;
        let mut unwatched = Vec::new();
        let mut way = std::collections::HashSet::new();
        for (i, (p, _)) in self.way.iter().enumerate() {
            match add_watch(&fd, p.as_path(), own) {
                Ok(wd) => {
                    watches.entry(wd).or_insert(Watched::Way);
                    way.insert(wd);
                }
                Err(_) => unwatched.push(i),
            }
        }
        Notices {
            fd: Some(fd),
            watches,
            way,
            armed,
            unwatched,
            ..Notices::default()
        }
    }

    /// Watch each `node_modules` that was missing at the start and is a folder now (once
    /// for each folder by that name): names created in it are read as in any other. Where
    /// it cannot be watched, every later look compares every path.
    fn watch_appeared(&self, n: &mut Notices) {
        let Some(fd) = &n.fd else { return };
        let mut added = Vec::new();
        let mut blind = false;
        // A folder where a missing `node_modules` would appear, removed and made again (or
        // made a link), is a new inode, which no watch reports on (review 45, 01-04).
        let mut rearmed = Vec::new();
        for (folder, was) in &n.armed {
            let now = key_of(folder);
            if (was.is_none() || now != *was) && fs::metadata(folder).is_ok_and(|m| m.is_dir()) {
                match rustix::fs::inotify::add_watch(
                    fd,
                    folder.as_path(),
                    watch_flags() | rustix::fs::inotify::WatchFlags::MASK_ADD,
                ) {
                    Ok(wd) => rearmed.push((folder.clone(), now, wd)),
                    Err(_) => blind = true,
                }
            }
        }
        for (folder, now, wd) in rearmed {
            n.watches.insert(wd, Watched::Parent(folder.clone()));
            n.armed.insert(folder, now);
        }
        for (i, shelf) in self.shelves.iter().enumerate().filter(|(_, s)| !s.existed) {
            let Ok(m) = fs::symlink_metadata(&shelf.path) else {
                continue;
            };
            let key = (m.dev(), m.ino());
            if !m.is_dir() || n.appeared.get(&i) == Some(&key) {
                continue;
            }
            match rustix::fs::inotify::add_watch(fd, shelf.path.as_path(), watch_flags()) {
                Ok(wd) => added.push((i, key, wd)),
                Err(_) => blind = true,
            }
        }
        for (i, key, wd) in added {
            n.appeared.insert(i, key);
            n.watches
                .insert(wd, Watched::Holder(Some((i, OsString::new()))));
        }
        if blind {
            n.fd = None;
        }
    }

    /// Watch each scope folder (`@s`) in a watched `node_modules` that was not there at the
    /// start (once for each folder by that name and inode): the packages a trial adds in it
    /// later are read as in any other. Where one cannot be watched, every later look
    /// compares every path.
    fn watch_new_scopes(&self, n: &mut Notices) {
        let Some(fd) = &n.fd else { return };
        let mut added = Vec::new();
        let mut blind = false;
        for (i, shelf) in self.shelves.iter().enumerate() {
            let Ok(list) = fs::read_dir(&shelf.path) else {
                continue;
            };
            for e in list.flatten() {
                let name = e.file_name();
                if !name.as_bytes().starts_with(b"@") || shelf.listed.contains(&name) {
                    continue;
                }
                let path = e.path();
                let Ok(m) = fs::symlink_metadata(&path) else {
                    continue;
                };
                let key = (m.dev(), m.ino());
                if !m.is_dir() || n.scopes.get(&path) == Some(&key) {
                    continue;
                }
                match rustix::fs::inotify::add_watch(fd, path.as_path(), watch_flags()) {
                    Ok(wd) => {
                        let mut prefix = name.clone();
                        prefix.push("/");
                        added.push((path, key, wd, i, prefix));
                    }
                    Err(_) => blind = true,
                }
            }
        }
        for (path, key, wd, i, prefix) in added {
            n.scopes.insert(path, key);
            n.watches.insert(wd, Watched::Holder(Some((i, prefix))));
        }
        if blind {
            n.fd = None;
        }
    }

    /// Whether the kernel reported anything since the last call that could be a change
    /// (or cannot say: its queue overflowed, or there is no watch).
    fn noticed(&self, n: &mut Notices) -> bool {
        use rustix::fs::inotify::{ReadFlags, Reader};
        let Some(fd) = &n.fd else { return true };
        let mut buf = [std::mem::MaybeUninit::<u8>::uninit(); 16 << 10];
        let mut events = Reader::new(fd, &mut buf);
        let mut seen = false;
        let mut gone = false;
        // Folders watched for a missing `node_modules` whose watch is gone (removed, renamed
        // away): one made again by that name, even on the same inode, is watched again.
        let mut lost = Vec::new();
        let done = loop {
            match events.next() {
                Ok(e) => {
                    let what = e.events() - ReadFlags::ISDIR;
                    let name = e.file_name().map(|n| n.to_bytes()).unwrap_or_default();
                    let created = what == ReadFlags::CREATE;
                    let own = ReadFlags::MOVE_SELF | ReadFlags::DELETE_SELF | ReadFlags::IGNORED;
                    if let Some(Watched::Parent(folder)) = n.watches.get(&e.wd())
                        && what.intersects(own)
                    {
                        lost.push(folder.clone());
                    } else if what.intersects(own) {
                        // Any other watched folder removed or moved away: one made in its
                        // place may get its inode number back, which a stamp or a key of
                        // device and inode cannot tell from the old one, and no watch
                        // reports on it (review 61, 03, 04). Every later look compares
                        // every path.
                        gone = true;
                    }
                    let harmless = match n.watches.get(&e.wd()) {
                        // A `node_modules` anywhere is where node looks.
                        _ if name == b"node_modules" => false,
                        _ if what.intersects(own) && n.way.contains(&e.wd()) => false,
                        // The package manager's own files and the caches, not recorded, where
                        // they are what they are named for (a folder `.package-lock.json`
                        // is a package node loads by that name: review 58, 07).
                        Some(Watched::Holder(Some((i, prefix))))
                            if prefix.is_empty()
                                && own_entry(
                                    &self.shelves[*i].path,
                                    OsStr::from_bytes(name),
                                    self.installs == crate::model::Installs::Any,
                                ) =>
                        {
                            true
                        }
                        // A package added by a new name; a new scope is read whole.
                        Some(Watched::Holder(Some((i, prefix)))) if created => {
                            let mut full = prefix.clone();
                            full.push(OsStr::from_bytes(name));
                            let shelf = &self.shelves[*i];
                            !name.starts_with(b"@")
                                && !shelf.shadowed_by(&full, false)
                                && !self.refused_new(shelf, &full)
                        }
                        Some(Watched::Holder(None)) => created,
                        // Beside a missing `node_modules`: only that name (above), or a
                        // folder made or moved in (which may hold one: a folder renamed aside
                        // and another built in its place, review 43, 01), counts; one removed
                        // or renamed away is the agent's business (review 44, h12-h19).
                        // A link by any name counts too: node follows it (review 45, 01-04).
                        Some(Watched::Parent(folder)) => {
                            !(what.intersects(ReadFlags::CREATE | ReadFlags::MOVED_TO)
                                && (e.events().contains(ReadFlags::ISDIR)
                                    || fs::symlink_metadata(folder.join(OsStr::from_bytes(name)))
                                        .is_ok_and(|m| !m.is_file())))
                        }
                        _ => false,
                    };
                    seen |= !harmless;
                }
                Err(rustix::io::Errno::AGAIN) => break seen,
                Err(rustix::io::Errno::INTR) => {}
                Err(_) => break true,
            }
        };
        for folder in lost {
            n.armed.insert(folder, None);
        }
        if gone {
            n.fd = None;
            return true;
        }
        done
    }

    /// Record everything beneath the `node_modules` at `top`, and every `node_modules`
    /// there as a [`Shelf`].
    fn walk(&mut self, top: &Path, alias: Option<PathBuf>) {
        self.shelves
            .push(Shelf::new(top.to_path_buf(), alias, true));
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
                // A dot file at the top that is not a package manager's is compared as any
                // package file: a package may load it by its path (review 58, 12).
                if (pnpm && kind.is_file())
                    || (holds
                        && dot
                        && own_entry(&dir, &name, self.installs == crate::model::Installs::Any))
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
                if folder && name == "node_modules" {
                    self.shelves.push(Shelf::new(path.clone(), None, true));
                } else if holder && name != ".bin" && !path.join("node_modules").exists() {
                    // Node looks in `@s/node_modules` for what `@s/x` requires, and pnpm's
                    // `.pnpm/node_modules` holds its hoisted packages: one a trial creates
                    // would come first (review 44, n01, n02). A package's own folder moves
                    // its change time when one is created there.
                    self.shelves
                        .push(Shelf::new(path.join("node_modules"), None, false));
                }
                if folder {
                    todo.push((path, holder, holds && name == ".pnpm"));
                }
            }
        }
    }

    /// [`Packages::changed_since_start`], every recorded path compared only where the kernel
    /// reported something in a watched folder since the last look found nothing: the look
    /// before each check. Once a watched folder is removed or moved away (one made in its
    /// place may reuse its inode number, and is watched by nothing), every path at every
    /// look. The folders on the way that could not be watched are compared
    /// every time. A write through a
    /// hard link made elsewhere is not reported, but moves the file's change time, which the
    /// end-of-run look sees.
    pub fn changed(&self) -> Option<PathBuf> {
        if let Some(p) = self.relinked().or_else(|| self.new_bin()) {
            return Some(p);
        }
        let mut n = self.notices.lock().unwrap_or_else(|e| e.into_inner());
        let noticed = self.noticed(&mut n);
        n.dirty |= noticed;
        let unwatched = (n.unwatched.iter()).map(|&i| &self.way[i]);
        if let Some((p, _)) = unwatched.clone().find(|(p, was)| stamp(p, true) != *was) {
            return Some(p.clone());
        }
        if !n.dirty {
            return None;
        }
        // Watched before it is read: a name created after this is reported.
        self.watch_appeared(&mut n);
        self.watch_new_scopes(&mut n);
        let found = (self.moved_way())
            .or_else(|| self.changed_entry())
            .or_else(|| self.shadowed())
            .or_else(|| self.appeared_holder());
        n.dirty = found.is_some();
        found
    }

    /// The first `.bin` or `.pnpm` below the watched `node_modules` that was missing at the
    /// start and is there now: code node loads by that name, or a folder of names no look
    /// reads (by default, and for a listed name).
    fn appeared_holder(&self) -> Option<PathBuf> {
        let p = (self.absent.iter()).find(|p| fs::symlink_metadata(p).is_ok())?;
        (self.asked_found.lock().unwrap_or_else(|e| e.into_inner())).insert(p.clone(), None);
        Some(p.clone())
    }

    /// The first watched path that is not what it was when the run started, a folder on the
    /// way that is not the one it was, or a name that shadows a package: every path
    /// compared.
    pub fn changed_since_start(&self) -> Option<PathBuf> {
        (self.relinked())
            .or_else(|| self.new_bin())
            .or_else(|| self.moved_way())
            .or_else(|| self.changed_entry())
            .or_else(|| self.shadowed())
            .or_else(|| self.appeared_holder())
    }

    /// The first linked `node_modules` that leads elsewhere than at the start, or now leads
    /// somewhere where it led nowhere.
    fn relinked(&self) -> Option<PathBuf> {
        (self.links.iter())
            .find(|(p, to)| fs::canonicalize(p).ok() != *to)
            .map(|(p, _)| p.clone())
    }

    /// The first new name in a watched `.bin` that a check may run ([`Bin::shadowing`]).
    fn new_bin(&self) -> Option<PathBuf> {
        let (path, unlisted) = (self.bins.iter()).find_map(|b| b.shadowing(&self.installs))?;
        if unlisted {
            (self.asked_found.lock().unwrap_or_else(|e| e.into_inner())).insert(path.clone(), None);
        }
        Some(path)
    }

    fn moved_way(&self) -> Option<PathBuf> {
        (self.way.iter())
            .find(|(p, was)| stamp(p, true) != *was)
            .map(|(p, _)| p.clone())
    }

    fn changed_entry(&self) -> Option<PathBuf> {
        (self.entries.iter())
            .find(|(p, holder, was)| stamp(p, *holder) != *was)
            .map(|(p, _, _)| p.clone())
    }

    fn shadowed(&self) -> Option<PathBuf> {
        let asks = |shelf: &Shelf, name: &OsStr| self.refused_new(shelf, name);
        let any = self.installs == crate::model::Installs::Any;
        self.shelves.iter().find_map(|s| s.shadowing(&asks, any))
    }

    /// The first recorded path of a package (not a folder of packages) whose change time is
    /// later than `started` (RFC 3339 UTC, as a ledger's header has it): on `--resume`, what
    /// was recorded now may be what a trial of the first part wrote (review 43, 16).
    pub fn written_since(&self, started: &str) -> Option<PathBuf> {
        // A folder of packages too: one renamed into place keeps its children's change
        // times and moves its own (review 44, n20c).
        let written = |p: &Path, st: &Stamp| match st {
            Stamp::Entry { ctime, .. } => after(*ctime, started),
            Stamp::Holder { .. } => {
                fs::symlink_metadata(p).is_ok_and(|m| after((m.ctime(), m.ctime_nsec()), started))
            }
            Stamp::Missing => false,
        };
        (self.entries.iter())
            .find(|(p, _, st)| written(p, st))
            .map(|(p, _, _)| p.clone())
    }

    /// Whether nothing is watched (no check's node looks in a folder the trials write).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
            && self.way.is_empty()
            && self.shelves.is_empty()
            && self.links.is_empty()
    }

    /// The `node_modules` whose entries past [`PACKAGE_ENTRIES`] are not watched, if any.
    pub fn partial(&self) -> Option<&Path> {
        self.partial.as_deref()
    }
}

/// Why a check may not run, or a run publish no verdict, when `path` is
/// [`Packages::changed`]: before a check (`check`), or at the end of the run.
pub fn refusal(path: &Path, check: bool) -> String {
    format!(
        "`{}` changed during the run (a trial did it): it is a package node may load for a \
         check, a name in front of one, or a folder on the way to one, so the check could run \
         the trial's code; {}no verdict is published (an agent must not rewrite or shadow \
         installed packages; keep a node grader's packages in its own `node_modules`, beside \
         its `package.json`, outside the folders the trials write)",
        path.display(),
        if check {
            "the check was not run and "
        } else {
            ""
        }
    )
}

/// Whether a change time (seconds, nanoseconds since the epoch) may be later than `started`
/// (RFC 3339 UTC with milliseconds, fixed width: compared as text). The kernel stamps a
/// change with its coarse clock, which runs up to a few ticks behind the clock the ledger's
/// start was read from: a change within a second before `started` counts as after it.
pub fn after((secs, nanos): (i64, i64), started: &str) -> bool {
    let at = std::time::UNIX_EPOCH
        + std::time::Duration::new(secs.max(0) as u64 + 1, nanos.clamp(0, 999_999_999) as u32);
    *crate::ledger::rfc3339(at) > *started
}

/// The names in the `node_modules` at `folder` (`x`, `x.js`, and `@s/x` inside a scope),
/// links followed (a `node_modules` may be one), dot names but `.bin`, `.pnpm` and
/// [`own_entry`]s too: empty where there is
/// none, `None` where it cannot be read whole (a folder or a scope unreadable, or more than
/// [`PACKAGE_ENTRIES`] names).
fn listing(folder: &Path, any: bool) -> Option<BTreeSet<OsString>> {
    let mut out = BTreeSet::new();
    let list = match fs::read_dir(folder) {
        Ok(list) => list,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(out),
        Err(_) => return None,
    };
    for e in list {
        let name = e.ok()?.file_name();
        if out.len() >= PACKAGE_ENTRIES {
            return None;
        }
        // A dot name is a package node resolves too (`require(".x")`), but for `.bin` and
        // pnpm's `.pnpm` (read as folders of their own) and the package managers' own files
        // and the tools' caches.
        if name == ".bin" || name == ".pnpm" || own_entry(folder, &name, any) {
            continue;
        }
        if name.as_bytes().starts_with(b"@") {
            for s in fs::read_dir(folder.join(&name)).ok()? {
                let mut scoped = name.clone();
                scoped.push("/");
                scoped.push(s.ok()?.file_name());
                out.insert(scoped);
            }
        }
        out.insert(name);
    }
    Some(out)
}

/// Whether `name` at the top of the `node_modules` `folder` is a package manager's or a
/// tool's own ([`own_dot_name`]) and what it is named for: a cache a real folder, a JSON
/// lock or state file a file. Anything else by such a name is a package node resolves
/// (`require(".package-lock.json")` loads a folder by that name: review 58, 07; a `.cache`
/// file is code: review 59, 24). pnpm's `.modules.yaml` and yarn's `.yarn-integrity` and
/// `.yarn-state.yml` are files node loads as code by their names (review 59, 08, 25, 28):
/// they are theirs only where the plan says `any`.
fn own_entry(folder: &Path, name: &OsStr, any: bool) -> bool {
    let bytes = name.as_bytes();
    if !own_dot_name(bytes) {
        return false;
    }
    let Ok(meta) = fs::symlink_metadata(folder.join(name)) else {
        return false;
    };
    if CACHES.iter().any(|c| bytes == c.as_bytes()) {
        return meta.is_dir();
    }
    meta.is_file() && (any || bytes.ends_with(b".json"))
}

/// The names a package manager or a tool keeps at the top of a `node_modules` that are no
/// package: its lock and state files, and the caches ([`CACHES`]).
fn own_dot_name(name: &[u8]) -> bool {
    name.starts_with(b".")
        && (CACHES.iter().any(|c| name == c.as_bytes())
            || [
                ".package-lock.json",
                ".modules.yaml",
                ".yarn-integrity",
                ".yarn-state.yml",
                ".pnpm-workspace-state.json",
                ".pnpm-workspace-state-v1.json",
            ]
            .iter()
            .any(|f| name == f.as_bytes()))
}

/// The folders node looks in after every `node_modules` above the importing file: each of
/// `NODE_PATH`, `$HOME/.node_modules`, `$HOME/.node_libraries` and `PREFIX/lib/node` (the
/// `node` on `PATH` in `PREFIX/bin`). A package found only there is shadowed by one a trial
/// installs in a `node_modules` (review 46, a04, a05). The check inherits gate's environment.
fn global_folders() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = std::env::var_os("NODE_PATH")
        .map(|v| {
            std::env::split_paths(&v)
                .filter(|p| p.is_absolute())
                .collect()
        })
        .unwrap_or_default();
    if let Some(home) = std::env::var_os("HOME").map(PathBuf::from) {
        out.push(home.join(".node_modules"));
        out.push(home.join(".node_libraries"));
    }
    let node = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|v| std::env::split_paths(&v).collect::<Vec<_>>())
        .map(|d| d.join("node"))
        .find(|p| p.is_file());
    if let Some(prefix) = node
        .and_then(|p| fs::canonicalize(p).ok())
        .and_then(|p| p.parent()?.parent().map(Path::to_path_buf))
    {
        out.push(prefix.join("lib/node"));
    }
    out
}

/// The package a name in a `node_modules` is to node: `x.js`, `x.json` and `x.node` are
/// `x` (node tries the name with each extension before the folder).
fn stem(name: &OsStr) -> OsString {
    let bytes = name.as_bytes();
    let stem = [".js", ".json", ".node"]
        .iter()
        .find_map(|x| bytes.strip_suffix(x.as_bytes()))
        .unwrap_or(bytes);
    OsStr::from_bytes(stem).to_os_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn asked_index_reads_every_quoted_word_of_a_package_but_its_documentation() {
        let t = tempfile::tempdir().unwrap();
        let d = t.path().join("node_modules/eq");
        let files = [
            (
                "package.json",
                r##"{"name":"eq","main":"../main-out/index.js","devDependencies":{"dev-only":"1"},"imports":{"#c":{"node":"mapped-g"}}}"##,
            ),
            (
                "index.mjs",
                "try { require.call(null, 'call-a/sub') } catch {}\nimport x from \"@s/b/deep\";\nconst r = require; r(`alias-c`);\nrequire(\n// optional\n'comment-d');\nrequire(\"../up-e\"); require('node:fs');\nconst s = \"a message with spaces\"; eval(\"require(\\\"eval-f\\\")\");\n",
            ),
            ("opt.conf", "module.constructor._load('conf-h', module);\n"),
            ("plugins.json", "[\"data-i\", \"@t/data-j\", \"./local\"]\n"),
            ("mime.json", "{\"application/express\": [\"exp\"]}\n"),
            (
                "load.js",
                "require(`eq-${p}`); require('pre-' + q); require(\"bab-\".concat(p)); require(`@u/${p}`); require(\"@v/\" + p);\n",
            ),
            ("README.md", "require(\"doc-only\")\n"),
            ("types.d.ts", "import \"type-only\";\n"),
            ("lib/x.js.map", "{\"sources\":[\"map-only\"]}\n"),
            ("__tests__/fixture.js", "require(\"test-only\")\n"),
            ("HISTORY", "require(\"history-code\")\n"),
        ];
        for (name, text) in files {
            write(&d.join(name), text);
        }
        let paths: Vec<PathBuf> = files
            .iter()
            .map(|(n, _)| d.join(n))
            .filter(|p| asks_in(p))
            .collect();
        assert_eq!(
            paths.len(),
            7,
            "the documentation, types, maps and tests are not read"
        );
        let a = asked_index(paths.iter().map(PathBuf::as_path));
        for n in [
            "history-code",
            "main-out",
            "mapped-g",
            "call-a",
            "@s/b",
            "alias-c",
            "comment-d",
            "up-e",
            "eval-f",
            "conf-h",
            "data-i",
            "@t/data-j",
            "eq",
        ] {
            assert!(a.names.contains_key(OsStr::new(n)), "{n} is spelled");
        }
        for n in [
            "a message with spaces",
            "message",
            "doc-only",
            "type-only",
            "map-only",
            "test-only",
            "dev-only",
            "@s",
            "sub",
            "index",
            "express",
            "local",
        ] {
            assert!(!a.names.contains_key(OsStr::new(n)), "{n} is not spelled");
        }
        let mut prefixes: Vec<&[u8]> = a.prefixes.keys().map(Vec::as_slice).collect();
        prefixes.sort();
        assert_eq!(
            prefixes,
            [b"@u/".as_slice(), b"@v/", b"bab-", b"eq-", b"pre-"]
        );
        assert!(a.unread.is_none());
        // A folder with no extension is read as nothing, not as a file it could not read.
        let with_folder = asked_index([d.join("lib").as_path()].into_iter());
        assert!(with_folder.unread.is_none() && with_folder.names.is_empty());
    }

    #[test]
    fn quoted_words_are_runs_a_specifier_may_hold_between_quotes() {
        let text = br#"a "x" 'y/z' `t-${p}` "two words" \"esc\" "" "q"r" 'it's'"#;
        let found = quoted_words(text);
        let words: Vec<&[u8]> = found.iter().map(|(w, _)| &w[..]).collect();
        assert_eq!(
            words,
            [b"x".as_slice(), b"y/z", b"t-${p}", b"esc", b"q", b"it"]
        );
        // Literals joined at once are one word; one joined to a value opens a name.
        let text = br#"r("eq" + "-" + "co"); r("ab".concat("-cd")); r("st" + sep); x = "no" + y"#;
        let found = quoted_words(text);
        let words: Vec<(&[u8], bool)> = found.iter().map(|(w, o)| (&w[..], *o)).collect();
        assert_eq!(
            words,
            [
                (b"eq-co".as_slice(), false),
                (b"ab-cd", false),
                (b"st", true),
                (b"no", false)
            ]
        );
    }

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
        let w = Packages::take(std::slice::from_ref(&nm), &[], crate::model::Installs::Any);
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
        assert_eq!(w.changed(), Some(main.to_path_buf()));
        // A file added beside a package's (node tries `lib/main` before `lib/main.js`).
        let w = Packages::take(std::slice::from_ref(&nm), &[], crate::model::Installs::Any);
        write(&nm.join("dotenv/lib/main"), "process.exit(0)\n");
        assert_eq!(w.changed(), Some(nm.join("dotenv/lib").to_path_buf()));
        // A package removed, a scoped one replaced.
        let w = Packages::take(std::slice::from_ref(&nm), &[], crate::model::Installs::Any);
        fs::remove_dir_all(nm.join("@s/p")).unwrap();
        write(&nm.join("@s/p/index.js"), "\n");
        assert!(w.changed().is_some());
    }

    /// `policy.sandbox.installs`: by default no new name may be added, whatever it is and
    /// however node would find it (a scoped name, a dot name, one in a `node_modules` made
    /// during the run); a listed name may, unless a package there writes it; `any` lets
    /// every name but those. The package managers' own files and the caches stay harmless.
    #[test]
    fn a_new_name_is_a_change_unless_the_plan_lets_a_trial_install_it() {
        use crate::model::Installs;
        let d = tempfile::tempdir().unwrap();
        let nm = d.path().join("node_modules");
        write(
            &nm.join("loader/index.js"),
            "const n = ['eq', 'color'].join('-'); try { require(n) } catch {}\nrequire('debug')\n",
        );
        let sub = d.path().join("sub/node_modules");
        let names = Installs::Names(vec!["zod".into(), "@types/node".into(), "debug".into()]);
        let look = |installs: Installs, add: &Path| {
            let w = Packages::take(&[nm.clone(), sub.clone()], &[], installs);
            assert_eq!(w.changed(), None);
            write(&nm.join(".package-lock.json"), "{}\n");
            write(&nm.join(".cache/babel/y.json"), "{}\n");
            write(add, "\n");
            let fast = w.changed();
            let slow = w.changed_since_start();
            let why = fast.as_deref().map(|p| w.refusal(p, true));
            fs::remove_file(add).unwrap();
            let mut up = add.parent().unwrap();
            while up != nm && up != sub && up != d.path() {
                let _ = fs::remove_dir(up);
                up = up.parent().unwrap();
            }
            if sub.exists() {
                fs::remove_dir_all(&sub).unwrap();
            }
            assert_eq!(fast.is_some(), slow.is_some(), "{add:?}");
            why
        };
        // The name built at run time, which no reading of `loader` finds, by default.
        let eq = nm.join("eq-color/index.js");
        let why = look(Installs::None, &eq).expect("eq-color is a change by default");
        assert!(
            why.contains("policy.sandbox.installs") && why.contains("no verdict"),
            "{why}"
        );
        assert_eq!(look(Installs::Any, &eq), None);
        assert!(look(names.clone(), &eq).is_some());
        for added in [
            nm.join("zod/index.js"),
            nm.join("@types/node/index.d.ts"),
            nm.join(".evil/index.js"),
            sub.join("zod/index.js"),
        ] {
            assert!(look(Installs::None, &added).is_some(), "{added:?}");
        }
        // A listed name may be added, in a new `node_modules` too; a dot name may not.
        assert_eq!(look(names.clone(), &nm.join("zod/index.js")), None);
        assert_eq!(
            look(names.clone(), &nm.join("@types/node/index.d.ts")),
            None
        );
        assert_eq!(look(names.clone(), &sub.join("zod/index.js")), None);
        assert!(look(names.clone(), &nm.join(".evil/index.js")).is_some());
        // A listed name a package there writes is still refused, and says which.
        let why = look(names.clone(), &nm.join("debug/index.js")).expect("debug is asked for");
        assert!(why.contains("loader/index.js"), "{why}");
        assert!(look(Installs::Any, &nm.join("debug/index.js")).is_some());
        // Review 58: a package manager's name that is not what it is named for (07), a file
        // by a listed name (a package is a folder), a file in `.bin` no listed package put
        // there (13): each a package node loads by its name.
        for installs in [Installs::None, names.clone()] {
            for added in [
                nm.join(".modules.yaml/index.js"),
                nm.join("zod"),
                nm.join(".bin/eq-color"),
            ] {
                assert!(look(installs.clone(), &added).is_some(), "{added:?}");
            }
        }
        // A `.bin` link into a listed package is its install's; a file is not, whatever it
        // says (node loads it as code by its name: review 59, 01), nor a link into a listed
        // name that leads above the `node_modules` (`zod -> ..`).
        write(&nm.join("zod/bin/zod.js"), "\n");
        fs::create_dir_all(nm.join(".bin")).unwrap();
        fs::remove_dir_all(nm.join("zod")).unwrap();
        let w = Packages::take(std::slice::from_ref(&nm), &[], names.clone());
        write(&nm.join("zod/bin/zod.js"), "\n");
        std::os::unix::fs::symlink("../zod/bin/zod.js", nm.join(".bin/zod")).unwrap();
        assert_eq!(w.changed(), None);
        assert_eq!(w.changed_since_start(), None);
        write(
            &nm.join(".bin/zod-shim"),
            "#!/bin/sh\nexec node \"$basedir/../zod/bin/zod.js\" \"$@\"\n# node_modules/zod/bin\n",
        );
        assert_eq!(w.changed(), Some(nm.join(".bin/zod-shim")));
        fs::remove_file(nm.join(".bin/zod-shim")).unwrap();
        fs::remove_dir_all(nm.join("zod")).unwrap();
        std::os::unix::fs::symlink("..", nm.join("zod")).unwrap();
        std::os::unix::fs::symlink("../zod/x.js", nm.join(".bin/x")).unwrap();
        assert_eq!(w.changed_since_start(), Some(nm.join(".bin/x")));
        fs::remove_dir_all(nm.join(".bin")).unwrap();
        fs::remove_file(nm.join("zod")).unwrap();
        // pnpm's store: a listed package's folder by its version may be added, nothing else;
        // a `.bin` or `.pnpm` that is a file is code node loads by that name (review 59).
        fs::create_dir_all(nm.join(".pnpm")).unwrap();
        let w = Packages::take(std::slice::from_ref(&nm), &[], names.clone());
        fs::create_dir_all(nm.join(".pnpm/zod@3.22.4/node_modules/zod")).unwrap();
        fs::create_dir_all(nm.join(".pnpm/@types+node@20.1.0")).unwrap();
        assert_eq!(w.changed_since_start(), None);
        write(&nm.join(".pnpm/index.js"), "\n");
        assert_eq!(w.changed_since_start(), Some(nm.join(".pnpm/index.js")));
        fs::remove_dir_all(nm.join(".pnpm")).unwrap();
        write(&nm.join(".pnpm"), "\n");
        assert!(w.changed_since_start().is_some());
        fs::remove_file(nm.join(".pnpm")).unwrap();
        for own in [".modules.yaml", ".yarn-integrity", ".vite"] {
            write(&nm.join(own), "process.exitCode = 0\n");
            assert!(w.changed_since_start().is_some(), "{own}");
            fs::remove_file(nm.join(own)).unwrap();
        }
        // A `.bin` or `.pnpm` that appears in a `node_modules` below the watched one, first
        // empty, then filled by a later trial (review 59, 38; read only where the kernel
        // reports the new name).
        write(&nm.join("loader/node_modules/dep/index.js"), "\n");
        for holder in [".bin", ".pnpm"] {
            let w = Packages::take(std::slice::from_ref(&nm), &[], names.clone());
            assert_eq!(w.changed(), None);
            let at = nm.join("loader/node_modules").join(holder);
            fs::create_dir_all(&at).unwrap();
            assert_eq!(w.changed(), Some(at.clone()), "{holder}");
            write(&at.join("x"), "\n");
            assert_eq!(w.changed_since_start(), Some(at.clone()), "{holder}");
            fs::remove_dir_all(&at).unwrap();
        }
        fs::remove_dir_all(nm.join("loader/node_modules")).unwrap();
        // A dot file there at the start is compared as any package file (12).
        write(&nm.join(".hooks.js"), "module.exports = 1\n");
        let w = Packages::take(std::slice::from_ref(&nm), &[], Installs::Any);
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(&nm.join(".hooks.js"), "process.exitCode = 0\n");
        assert_eq!(w.changed(), Some(nm.join(".hooks.js")));
    }

    /// A write through a hard link made outside the watched folders is not reported by the
    /// kernel there, but moves the file's change time: the end-of-run look sees it.
    #[test]
    fn a_write_through_a_hard_link_elsewhere_is_seen_at_the_end() {
        let d = tempfile::tempdir().unwrap();
        let nm = d.path().join("node_modules");
        let file = nm.join("eq/index.js");
        write(&file, "module.exports = (a, b) => a === b;\n");
        let w = Packages::take(std::slice::from_ref(&nm), &[], crate::model::Installs::Any);
        std::thread::sleep(std::time::Duration::from_millis(20));
        let other = d.path().join("mine.js");
        fs::hard_link(&file, &other).unwrap();
        fs::write(&other, "module.exports = () => true;\n").unwrap();
        assert_eq!(w.changed_since_start(), Some(file.to_path_buf()));
    }

    /// Review 44: a `node_modules` made inside a scope (node looks there for what `@s/x`
    /// requires, n01), a folder of packages whose mode changes (n03), and a dot link at the
    /// top re-pointed (`.prisma`, n16) are changes; a folder below removed is not (h12).
    #[test]
    fn review_44_scopes_modes_dot_links_and_removed_folders() {
        use std::os::unix::fs::PermissionsExt as _;
        let d = tempfile::tempdir().unwrap();
        let nm = d.path().join("node_modules");
        write(&nm.join("@babel/register/index.js"), "require('pirates')\n");
        write(&nm.join("pirates/index.js"), "\n");
        write(&d.path().join("gen/client/index.js"), "\n");
        std::os::unix::fs::symlink("../gen", nm.join(".prisma")).unwrap();
        let src = d.path().join("src");
        write(&src.join("a.txt"), "\n");
        let take = || {
            Packages::take(
                &[nm.clone(), src.join("node_modules")],
                &[],
                crate::model::Installs::Any,
            )
        };
        let w = take();
        fs::remove_dir_all(&src).unwrap();
        assert_eq!(w.changed(), None, "a folder below removed");
        assert_eq!(w.changed_since_start(), None);
        let w = take();
        let pirates = nm.join("@babel/node_modules/pirates");
        write(&pirates.join("index.js"), "\n");
        assert_eq!(w.changed(), Some(pirates));
        fs::remove_dir_all(nm.join("@babel/node_modules")).unwrap();
        let w = take();
        fs::set_permissions(nm.join("@babel"), fs::Permissions::from_mode(0o311)).unwrap();
        assert_eq!(w.changed(), Some(nm.join("@babel")));
        fs::set_permissions(nm.join("@babel"), fs::Permissions::from_mode(0o755)).unwrap();
        let w = take();
        fs::remove_file(nm.join(".prisma")).unwrap();
        std::os::unix::fs::symlink("../evil", nm.join(".prisma")).unwrap();
        assert_eq!(w.changed(), Some(nm.join(".prisma")));
    }

    /// Review 45, 01: a folder below the check's replaced by a link into a package folder
    /// the trial staged; 03: a folder removed and made again, then given a `node_modules`.
    #[test]
    fn review_45_a_folder_below_replaced_by_a_link_or_made_again() {
        let d = tempfile::tempdir().unwrap();
        let nm = d.path().join("node_modules");
        write(&nm.join("dotenv/config.js"), "\n");
        let src = d.path().join("src");
        write(&src.join("a.txt"), "\n");
        let take = || {
            Packages::take(
                &[nm.clone(), src.join("node_modules")],
                &[],
                crate::model::Installs::Any,
            )
        };
        let w = take();
        write(&nm.join("zz/node_modules/dotenv/config.js"), "\n");
        fs::remove_dir_all(&src).unwrap();
        std::os::unix::fs::symlink("node_modules/zz", &src).unwrap();
        assert_eq!(w.changed(), Some(src.join("node_modules/dotenv")), "01");
        fs::remove_file(&src).unwrap();
        fs::create_dir(&src).unwrap();
        let w = take();
        fs::remove_dir_all(&src).unwrap();
        fs::create_dir(&src).unwrap();
        assert_eq!(w.changed(), None, "a folder made again");
        write(&src.join("node_modules/dotenv/config.js"), "\n");
        assert_eq!(w.changed(), Some(src.join("node_modules/dotenv")), "03");
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
        let w = Packages::take(std::slice::from_ref(&nm), &[], crate::model::Installs::Any);
        write(&nm.join("left-pad/index.js"), "\n");
        assert_eq!(w.changed(), None, "an agent's own dependency");
        write(&nm.join("dotenv.js"), "\n");
        let shadow = nm.join("dotenv.js");
        assert_eq!(w.changed(), Some(shadow), "shadows ../node_modules/dotenv");
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
        let w = Packages::take(
            std::slice::from_ref(&link),
            &[],
            crate::model::Installs::Any,
        );
        write(&nm.join(".pnpm/lock.yaml"), "b\n");
        write(
            &nm.join(".pnpm/left-pad@1.0.0/node_modules/left-pad/index.js"),
            "\n",
        );
        assert_eq!(w.changed(), None);
        std::thread::sleep(std::time::Duration::from_millis(20));
        write(&real, "process.exit(0)\n");
        assert_eq!(w.changed(), Some(fs::canonicalize(&real).unwrap()));
    }

    /// Review 46, a29, a30: a `node_modules` that is a link through another link re-pointed
    /// (`deps/current -> v2`), or a dangling one whose target a trial creates, leads node
    /// elsewhere while every recorded path is as it was.
    #[test]
    fn a_linked_node_modules_that_leads_elsewhere_is_a_change() {
        let d = tempfile::tempdir().unwrap();
        write(&d.path().join("deps/v1/node_modules/eq/index.js"), "\n");
        std::os::unix::fs::symlink("v1", d.path().join("deps/current")).unwrap();
        let link = d.path().join("task/node_modules");
        fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink("../deps/current/node_modules", &link).unwrap();
        let w = Packages::take(
            std::slice::from_ref(&link),
            &[],
            crate::model::Installs::Any,
        );
        assert_eq!(w.changed(), None);
        write(&d.path().join("deps/v2/node_modules/eq/index.js"), "\n");
        fs::remove_file(d.path().join("deps/current")).unwrap();
        std::os::unix::fs::symlink("v2", d.path().join("deps/current")).unwrap();
        assert_eq!(w.changed(), Some(link.clone()));
        assert_eq!(w.changed_since_start(), Some(link.clone()));

        let dangling = d.path().join("other/node_modules");
        fs::create_dir_all(dangling.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(".deps/node_modules", &dangling).unwrap();
        let w = Packages::take(
            std::slice::from_ref(&dangling),
            &[],
            crate::model::Installs::Any,
        );
        assert_eq!(w.changed(), None);
        write(&d.path().join("other/.deps/node_modules/eq/index.js"), "\n");
        assert_eq!(w.changed(), Some(dangling));
    }
}
