//! The configuration files on a node check's way, as they were when the run started: a wall
//! that reads no grader text and no tool's code (review 50).
//!
//! The tools a node check runs read configuration from the folder they run in, and some of
//! it is code or names code: dotenv reads `.env` (a `NODE_OPTIONS=--require ./x.js` there
//! reaches every node the grader starts), tsx reads `tsconfig.json`'s `paths`, babel runs
//! `babel.config.js`, mocha runs `.mocharc.js`, node-config reads `config/`, npm reads
//! `.npmrc` (`node-options`, `script-shell`). Those folders are the task's, which the trials
//! write (review 46, a17, a18, a20, a24-a27; review 48, c06). Gate cannot know which tool a
//! grader starts, so for every check that runs node it records, in every folder of the
//! check's way (the check's folder and each grader's, each up to the top of its writable
//! root), the stamp of every name of [`CONFIGS`] and of every name starting with one of
//! [`CONFIG_PREFIXES`] there, present or not; and for a `config` folder, the stamps of its
//! entries too; and every folder below each node check's folder ([`walk`]: links into the
//! trials' roots followed, a Python environment for jest's `__mocks__` only). A name that
//! appeared, went, or changed (type, mode, size, inode, change
//! time; a link also by its text and what it leads to) is a change, and the check does not
//! run ([`Configs::changed`]).
//!
//! The cost, accepted: an agent whose task is to edit one of these files (a `tsconfig.json`
//! in a TypeScript project) under a node check gets no verdict. Grade such a task from a
//! copy, or with the graders' tools and their configuration outside the folders the trials
//! write.

use std::collections::{BTreeMap, HashMap};
use std::ffi::{OsStr, OsString};
use std::fs;
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::MetadataExt as _;
use std::path::{Path, PathBuf};

/// The configuration names a node tool reads from the folder it runs in, by family, each
/// with why it is here. Whatever a tool reads there a trial can write, and each of these
/// either is code the tool runs or names code it loads.
pub const CONFIGS: &[(&[&str], &str)] = &[
    (
        &[
            ".npmrc",
            ".yarnrc",
            ".yarnrc.yml",
            ".pnpmfile.cjs",
            ".pnpmfile.mjs",
        ],
        // review 46, a17; review 48, c06
        "package managers: `.npmrc`'s `node-options=--require ./x.js` and `script-shell` \
         reach every script and `npx` tool; yarn's rc names its own code (`yarnPath`), \
         pnpm runs its `.pnpmfile`",
    ),
    (
        &["tsconfig.json", "jsconfig.json"],
        // review 46, a24 (the `tsconfig.*.json` an `extends` names: CONFIG_PREFIXES)
        "TypeScript runners (tsx, ts-node, vitest, jest's resolvers): `paths` maps a name a \
         grader imports onto a file of the trial's",
    ),
    (
        &[
            "babel.config.js",
            "babel.config.cjs",
            "babel.config.mjs",
            "babel.config.json",
            "babel.config.cts",
            "babel.config.mts",
            "babel.config.ts",
            ".babelrc",
            ".babelrc.js",
            ".babelrc.cjs",
            ".babelrc.mjs",
            ".babelrc.json",
            ".babelrc.cts",
        ],
        // review 46, a25
        "babel (`@babel/register`, babel-jest): the `.js` forms are code it runs, the others \
         name plugins it loads",
    ),
    (
        &[
            ".mocharc.js",
            ".mocharc.cjs",
            ".mocharc.mjs",
            ".mocharc.json",
            ".mocharc.jsonc",
            ".mocharc.yaml",
            ".mocharc.yml",
        ],
        // review 46, a27
        "mocha: runs `.mocharc.js`, and every form's `require` loads a file before the tests",
    ),
    (
        &[
            "jest.config.js",
            "jest.config.cjs",
            "jest.config.mjs",
            "jest.config.ts",
            "jest.config.cts",
            "jest.config.mts",
            "jest.config.json",
            "vitest.config.js",
            "vitest.config.cjs",
            "vitest.config.mjs",
            "vitest.config.ts",
            "vitest.config.cts",
            "vitest.config.mts",
            "vitest.config.json",
            "vite.config.js",
            "vite.config.cjs",
            "vite.config.mjs",
            "vite.config.ts",
            "vite.config.cts",
            "vite.config.mts",
            "vite.config.json",
            "vitest.workspace.js",
            "vitest.workspace.cjs",
            "vitest.workspace.mjs",
            "vitest.workspace.ts",
            "vitest.workspace.cts",
            "vitest.workspace.mts",
            "vitest.workspace.json",
            "ava.config.js",
            "ava.config.cjs",
            "ava.config.mjs",
            "playwright.config.js",
            "playwright.config.ts",
            "playwright.config.mjs",
            "playwright.config.cjs",
            "playwright.config.mts",
            "playwright.config.cts",
        ],
        "test runners (jest, vitest, vite, ava, playwright): code they run, and which tests, \
         setup files and reporters they load",
    ),
    (
        &[
            ".nycrc",
            ".nycrc.json",
            ".nycrc.yml",
            ".nycrc.yaml",
            ".c8rc",
            ".c8rc.json",
            ".swcrc",
        ],
        "coverage and transform tools (nyc, c8, swc): the files they `require` first, the \
         plugins they load",
    ),
    (
        &["deno.json", "deno.jsonc", "bunfig.toml"],
        "deno and bun: import maps and preloads (`bunfig.toml`'s `preload`)",
    ),
];

/// Name prefixes whose every name counts as [`CONFIGS`] does: `.env` and each `.env.*`
/// (dotenv and its kin read `.env`, `.env.local`, `.env.test`…: review 46, a20), and
/// `tsconfig.*`, `jsconfig.*` (the files a `tsconfig.json`'s `extends` names).
pub const CONFIG_PREFIXES: &[&str] = &[".env", "tsconfig.", "jsconfig."];

/// Folders a tool reads whole from the folder it runs in: node-config's `config/`
/// (`default.json`, `local.js`, …: review 46, a26), and jest's `__mocks__`, whose files
/// jest loads in place of the package or module of their name with no `jest.mock` call
/// (review 50, rev50b 03). Compared with every entry below them (at most
/// [`FOLDER_ENTRIES`]).
pub const CONFIG_FOLDERS: &[&str] = &["config", "__mocks__"];

/// How many files of an `extends` chain are followed from one `tsconfig*.json` /
/// `jsconfig*.json` ([`extended`]).
const EXTENDS_DEPTH: usize = 8;

/// Names read at most in one watched folder; past that the folder's state is its count,
/// which a trial's new name still changes.
const FOLDER_ENTRIES: usize = 100_000;

/// Whether `name` is a configuration name ([`CONFIGS`], [`CONFIG_PREFIXES`],
/// [`CONFIG_FOLDERS`]).
pub fn is_config(name: &OsStr) -> bool {
    let b = name.as_bytes();
    CONFIGS
        .iter()
        .flat_map(|(names, _)| names.iter())
        .chain(CONFIG_FOLDERS)
        .any(|n| n.as_bytes() == b)
        || CONFIG_PREFIXES.iter().any(|p| {
            // `tsconfig.*.json`, not tsc's `tsconfig.tsbuildinfo` (rev50e H3: an agent's
            // incremental build is no configuration).
            b.starts_with(p.as_bytes()) && (p.starts_with('.') || b.ends_with(b".json"))
        })
}

/// What `m` is: type and mode, device, inode, size and change time (which a process cannot
/// set back: a file written back as it was is still seen).
pub(super) fn describe(m: &fs::Metadata) -> String {
    format!(
        "{:o} {}:{} {} {}.{}",
        m.mode(),
        m.dev(),
        m.ino(),
        m.size(),
        m.ctime(),
        m.ctime_nsec()
    )
}

/// What `p` is, links not followed; a link also by its text and by what it leads to (a
/// link to a file the trials write is that file).
fn state(p: &Path) -> String {
    let Ok(own) = fs::symlink_metadata(p) else {
        return "missing".to_string();
    };
    let mut s = describe(&own);
    if own.file_type().is_symlink() {
        let to = fs::metadata(p).map_or_else(|_| "nothing".to_string(), |m| describe(&m));
        s.push_str(&format!(" link {:?} to {to}", fs::read_link(p).ok()));
    }
    s
}

/// The configuration in folder `dir` now: each configuration name there with its
/// [`state`]; a configuration folder's entries as `config/<name>`. A folder gate cannot read
/// whole is a state of its own.
fn snapshot(dir: &Path) -> BTreeMap<OsString, String> {
    match fs::read_dir(dir) {
        Ok(list) => snapshot_of(dir, list.flatten().map(|e| entry(&e)), &mut |_| {}, false),
        Err(_) => BTreeMap::from([(OsString::from("/unreadable"), state(dir))]),
    }
}

/// An entry of a folder: its name, and whether it is a folder (links not followed; the
/// type the listing gives, so no `stat` of every name).
fn entry(e: &fs::DirEntry) -> (OsString, bool) {
    (e.file_name(), e.file_type().is_ok_and(|t| t.is_dir()))
}

/// [`snapshot`] of the folder `dir` whose names are `names` (read once by the caller);
/// `folder` is told each name that is a folder (links not followed), for a walk below.
fn snapshot_of(
    dir: &Path,
    names: impl Iterator<Item = (OsString, bool)>,
    folder: &mut dyn FnMut(PathBuf),
    below: bool,
) -> BTreeMap<OsString, String> {
    let mut out = BTreeMap::new();
    let mut seen = 0usize;
    for (name, is_dir) in names {
        seen += 1;
        let path = dir.join(&name);
        // node-config reads `config/` of the folder node runs in; below the check's folder
        // a `config` folder is most often the project's own source (rev50e H2:
        // `src/config/index.js`), so there it is a folder like another.
        let config = is_config(&name) && !(below && is_dir && name == "config");
        if is_dir {
            folder(path.clone());
        }
        if name == "package.json" && !is_dir {
            // The fields tools read as their configuration (review 50, rev50b 05: `"mocha":
            // {"require": "./x.js"}`).
            // A `package.json` without them (`npm init -y`, an agent's new package) is none.
            if let Some(fields) = tool_fields(&path) {
                out.insert(OsString::from(TOOL_FIELDS_KEY), fields);
            }
        }
        if !config {
            continue;
        }
        if is_dir && CONFIG_FOLDERS.iter().any(|f| name == *f) {
            // Every entry below, links not followed: a file rewritten in a folder below
            // (`__mocks__/@s/x.js`) moves no folder's change time.
            let mut todo = vec![(path.clone(), name.clone())];
            let mut read = 0usize;
            while let Some((d, key)) = todo.pop() {
                let Ok(inner) = fs::read_dir(&d) else {
                    continue;
                };
                for c in inner.flatten() {
                    read += 1;
                    if read > FOLDER_ENTRIES {
                        break;
                    }
                    let mut k = key.clone();
                    k.push("/");
                    k.push(c.file_name());
                    let cp = c.path();
                    if fs::symlink_metadata(&cp).is_ok_and(|m| m.is_dir()) {
                        todo.push((cp.clone(), k.clone()));
                    }
                    out.insert(k, state(&cp));
                }
            }
            if read > FOLDER_ENTRIES {
                let mut k = name.clone();
                k.push("/…entries");
                out.insert(k, read.to_string());
            }
        }
        let b = name.as_bytes();
        if (b.starts_with(b"tsconfig") || b.starts_with(b"jsconfig")) && b.ends_with(b".json") {
            // The files its `extends` names, by their own paths (review 50, rev50b 04: a
            // `tsconfig.json` that extends `./tsbase/base.json`, whose `paths` the trial
            // rewrote). A package name is a `node_modules` file: the packages wall's.
            for f in extended(&path) {
                let mut k = OsString::from("/extends:");
                k.push(f.as_os_str());
                out.insert(k, state(&f));
            }
        }
        out.insert(name, state(&path));
    }
    if seen > FOLDER_ENTRIES {
        out.insert(OsString::from("/entries"), seen.to_string());
    }
    out
}

/// Folders below a check's that the walk ([`walk`]) leaves out: a package's own and git's
/// (the packages wall and git's pin cover them, and jest's crawl leaves them out too).
const NOT_WALKED: &[&str] = &["node_modules", ".git"];

/// Folders below a check's where the walk ([`walk`]) looks for jest's `__mocks__` only, and
/// last: a Python environment and gate's own output are large and hold no node tool's
/// configuration, but jest's crawl of its root goes through them and takes a `__mocks__`
/// it finds there as any other (review 50, rev50c 13: `venv/lib/__mocks__/eq.js`).
const MOCKS_ONLY: &[&str] = &[".venv", "venv", "__pycache__", "gate-out"];

/// Entries read at most below one check's folder by [`walk`]; past them the walk stops and
/// says so (a marker of its own).
pub const WALK_ENTRIES: usize = 200_000;

/// `text` (a link's) taken from the folder `base` without reading the file system: `..`
/// drops the last name.
fn lexical(base: &Path, text: &Path) -> PathBuf {
    let mut out = base.to_path_buf();
    for c in text.components() {
        match c {
            std::path::Component::RootDir => out = PathBuf::from("/"),
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::Normal(n) => out.push(n),
            std::path::Component::CurDir | std::path::Component::Prefix(_) => {}
        }
    }
    out
}

/// Whether `name` is a folder the walk does not read whole ([`NOT_WALKED`], [`MOCKS_ONLY`]).
fn left_out(name: &OsStr) -> bool {
    NOT_WALKED.iter().chain(MOCKS_ONLY).any(|x| name == *x)
}

/// Whether `to`, a folder inside `root`, lies in a part of it the walk does not read whole
/// ([`NOT_WALKED`], [`MOCKS_ONLY`]): a link into it from a walked folder is followed.
fn in_unwalked_part(to: &Path, root: &Path) -> bool {
    to.strip_prefix(root)
        .is_ok_and(|rel| rel.components().any(|c| left_out(c.as_os_str())))
}

/// Every folder below `root` (and `root`) now with its configuration ([`snapshot_of`]), each
/// folder read once; folders of [`NOT_WALKED`] and their contents left out, those of
/// [`MOCKS_ONLY`] read for `__mocks__` only, counting their folders alone against
/// [`WALK_ENTRIES`] (an honest `pip install` into a large environment is no new bound:
/// review 51, 04).
///
/// A link to a folder is followed, once per folder it leads to, and that folder walked by
/// its own path: a link into a root the trials may write (`writable`) outside `root` (a
/// grader's `cd app && mocha` where `app` leads into a `writable:` root: review 50, rev50e
/// 10), or into a part of `root` the walk does not read whole (`app` re-pointed into
/// `.venv/x` or `node_modules/x`: review 51, 06). A link named as one of those parts is
/// not (a linked `node_modules` is the packages wall's). Read in turn: `root`'s own folders,
/// then the folders links lead to, then those of [`MOCKS_ONLY`], so neither a large folder
/// a link leads to nor a large environment pushes `root`'s own past the bound (review 51,
/// 03, 07).
fn walk((firsts, root): &(Vec<PathBuf>, PathBuf), writable: &[PathBuf]) -> Folders {
    walk_bounded(firsts, root, writable, WALK_ENTRIES)
}

/// [`walk`] with `bound` in place of [`WALK_ENTRIES`], from `firsts` (the checks' folders
/// in `root`, read whole before the rest of it: a large sibling in a monorepo made writable
/// whole must not push a check's own folders past the bound, review 51b, 06; one walk of
/// `root` for all of them, not one per check's folder, review 51c, 05).
fn walk_bounded(firsts: &[PathBuf], root: &Path, writable: &[PathBuf], bound: usize) -> Folders {
    let real_root = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut out: Folders = HashMap::new();
    // Each queue holds (folder, `__mocks__` only); the first non-empty one is read from, the
    // last of it first.
    // Read in this order, each folder's folders in its own queue: `first` and below it, the
    // folders links lead to (as soon as one is found: a large sibling must not starve
    // them, review 51c, 10), the rest of `root`, the environments ([`MOCKS_ONLY`]).
    const LINKED: usize = 1;
    const ENVIRONMENTS: usize = 3;
    let mut queues: [Vec<PathBuf>; 4] = [firsts.to_vec(), vec![], vec![root.to_path_buf()], vec![]];
    let mut read = 0usize;
    while let Some((class, dir)) =
        (queues.iter_mut().enumerate()).find_map(|(i, q)| q.pop().map(|d| (i, d)))
    {
        let mocks_only = class == ENVIRONMENTS;
        if out.contains_key(&dir) {
            // Read already: a folder a link leads to, read whole before its environment.
            continue;
        }
        let Ok(list) = fs::read_dir(&dir) else {
            // Gone since it was listed, or unreadable: an unreadable folder is a state.
            if fs::symlink_metadata(&dir).is_ok() {
                out.insert(
                    dir.clone(),
                    BTreeMap::from([(OsString::from("/unreadable"), state(&dir))]),
                );
            }
            continue;
        };
        let entries: Vec<fs::DirEntry> = list.flatten().collect();
        let folders = || {
            entries
                .iter()
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        };
        read += if mocks_only {
            folders().count()
        } else {
            entries.len()
        };
        let mut links = BTreeMap::new();
        for e in entries.iter().filter(|_| !mocks_only) {
            if !e.file_type().is_ok_and(|t| t.is_symlink()) || left_out(&e.file_name()) {
                continue;
            }
            let to = fs::canonicalize(e.path()).ok();
            // A link to nothing, or to a folder the walk neither reads nor follows (outside
            // `root` and every writable root): by its text and where it leads, so one a trial
            // made or re-pointed there (into its own `TMPDIR`, a folder no root names: review
            // 51b, 03) is a change. One into `root` or a writable root is not (what it leads
            // to is read; `python -m venv env` makes `env/lib64 -> lib`).
            let unread =
                |t: &Path| !t.starts_with(&real_root) && !writable.iter().any(|w| t.starts_with(w));
            // A link to nothing, by where its text leads (`site/assets -> ../dist/assets`
            // before the build: review 51c, 08).
            let text = fs::read_link(e.path()).ok();
            let record = match &to {
                Some(t) => t.is_dir() && unread(t),
                None => text.as_ref().is_none_or(|x| unread(&lexical(&dir, x))),
            };
            if record {
                let mut k = OsString::from("/link:");
                k.push(e.file_name());
                links.insert(k, format!("{text:?} to {to:?}"));
            }
            let Some(to) = to.filter(|t| t.is_dir()) else {
                continue;
            };
            let follow = if to.starts_with(&real_root) {
                in_unwalked_part(&to, &real_root)
            } else {
                writable.iter().any(|w| to.starts_with(w))
            };
            // Each folder once, by its own path (review 51, 07); one below a folder read
            // already is read all the same, since that read left out its `node_modules` and
            // environments (review 51b, 01, 02).
            if follow && !out.contains_key(&to) {
                queues[LINKED].push(to.clone());
            }
            // A link to a folder that holds writable roots (`proj -> ..`): those roots are
            // where the trials write below it (review 51c, 07).
            for w in writable.iter().filter(|w| w.starts_with(&to) && **w != to) {
                if !w.starts_with(&real_root) && !out.contains_key(w) {
                    queues[LINKED].push(w.clone());
                }
            }
        }
        // In a folder of [`MOCKS_ONLY`], its folders alone, and of its configuration only
        // `__mocks__`.
        let names = (entries.iter().map(entry)).filter(|(_, is_dir)| !mocks_only || *is_dir);
        let mut below: Vec<(PathBuf, bool)> = Vec::new();
        let mut map = snapshot_of(
            &dir,
            names,
            &mut |p| {
                let name = p.file_name().unwrap_or_default();
                if NOT_WALKED.iter().any(|x| name == *x) {
                    return;
                }
                below.push((
                    p.clone(),
                    mocks_only || MOCKS_ONLY.iter().any(|x| name == *x),
                ));
            },
            true,
        );
        if mocks_only {
            map.retain(|k, _| k.as_bytes().starts_with(b"__mocks__"));
        }
        map.extend(links);
        out.insert(dir, map);
        if read > bound {
            out.insert(
                root.to_path_buf(),
                BTreeMap::from([(OsString::from("/walk"), "stopped".to_string())]),
            );
            break;
        }
        for (p, later) in below {
            queues[if later { ENVIRONMENTS } else { class }].push(p);
        }
    }
    out
}

/// The files a `tsconfig`/`jsconfig` at `file` extends, relative or absolute paths only (a
/// package name resolves into a `node_modules`), followed [`EXTENDS_DEPTH`] files deep, each
/// as TypeScript finds it (the path, else with `.json`, else its `tsconfig.json` when it is
/// a folder). Read as text: a quoted value after `"extends"`, or each quoted value of the
/// array there (TypeScript's files hold comments, which a JSON parser refuses).
fn extended(file: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    let mut todo = vec![file.to_path_buf()];
    while let Some(f) = todo.pop() {
        if out.len() >= EXTENDS_DEPTH {
            break;
        }
        // Without blocking and a regular file by the descriptor opened: this runs at every
        // look, when a trial beside the check (`policy.jobs` above 1) may have swapped a FIFO
        // in after a `stat`.
        let Ok(bytes) = crate::input::read_regular(&f, 1 << 20) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let dir = f.parent().unwrap_or(Path::new("/"));
        for v in extends_values(&text) {
            if !(v.starts_with('.') || v.starts_with('/')) {
                continue;
            }
            let p = dir.join(&v);
            let at = if p.is_file() {
                p
            } else if !p.is_dir() {
                PathBuf::from(format!("{}.json", p.display()))
            } else {
                p.join("tsconfig.json")
            };
            if !out.contains(&at) && at != file {
                out.push(at.clone());
                todo.push(at);
            }
        }
    }
    out
}

/// The quoted values of `"extends"` in a `tsconfig` text: one string, or an array of them.
fn extends_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find("\"extends\"") {
        rest = &rest[i + 9..];
        let after = rest.trim_start();
        let Some(after) = after.strip_prefix(':') else {
            continue;
        };
        let after = after.trim_start();
        let quoted = |s: &str| -> Option<String> {
            let s = s.strip_prefix('"')?;
            Some(s[..s.find('"')?].to_string())
        };
        if let Some(list) = after.strip_prefix('[') {
            let end = list.find(']').unwrap_or(list.len());
            out.extend(list[..end].split(',').filter_map(|x| quoted(x.trim())));
        } else if let Some(v) = quoted(after) {
            out.push(v);
        }
    }
    out
}

/// Folders with their configuration ([`walk`]).
type Folders = HashMap<PathBuf, BTreeMap<OsString, String>>;

/// The configuration of the watched folders ([`Configs::take`]).
#[derive(Debug, Default)]
pub struct Configs {
    /// Each folder with its configuration when the run started.
    folders: Vec<(PathBuf, BTreeMap<OsString, String>)>,
    /// Each node check's folder, with every folder below it and its configuration when the
    /// run started ([`walk`]).
    below: Vec<((Vec<PathBuf>, PathBuf), Folders)>,
    /// The roots the trials may write ([`crate::plan::state::writable_roots`]): a link below
    /// a check's folder into one of them is followed ([`walk`]).
    writable: Vec<PathBuf>,
    /// Each file a check hands a tool by an option (`--config x.js`:
    /// [`crate::plan::state::NodeFolders::named_configs`]), with its [`state`] when the run
    /// started.
    named: Vec<(PathBuf, String)>,
}

impl Configs {
    /// Record the configuration in each of `folders` as it is now
    /// ([`crate::plan::state::NodeFolders::configs`]).
    ///
    /// And below each of `roots` (each check's folder, read first, and the top of the
    /// writable root holding it: review 46, a11), every folder: a grader may run its
    /// tool from a folder below its own, one there at the start or one made since (`cd app
    /// && mocha`, `sh -c 'cd build && …'`, `env -C build`, `process.chdir(…)`: review 50,
    /// rev50b 01, 15; rev50c 06-09, 22), and jest finds a `__mocks__` anywhere (rev50c 11).
    ///
    /// And each of `named`, a file a check hands a tool by an option, by its [`state`].
    pub fn take(
        folders: &[PathBuf],
        roots: &[(PathBuf, PathBuf)],
        writable: &[PathBuf],
        named: &[PathBuf],
    ) -> Configs {
        // One walk for each top, from every check's folder below it.
        let mut tops: Vec<(Vec<PathBuf>, PathBuf)> = Vec::new();
        for (first, top) in roots {
            match tops.iter_mut().find(|(_, t)| t == top) {
                Some((firsts, _)) => firsts.push(first.clone()),
                None => tops.push((vec![first.clone()], top.clone())),
            }
        }
        Configs {
            folders: folders.iter().map(|d| (d.clone(), snapshot(d))).collect(),
            below: (tops.into_iter())
                .map(|r| {
                    let w = walk(&r, writable);
                    (r, w)
                })
                .collect(),
            writable: writable.to_vec(),
            named: named.iter().map(|p| (p.clone(), state(p))).collect(),
        }
    }

    /// The first configuration file that appeared, went, or changed since the run started
    /// in a watched folder. Every folder is read at every look: a handful of folders per
    /// check, no kernel notice needed.
    pub fn changed(&self) -> Option<PathBuf> {
        let named = || {
            (self.named.iter())
                .find(|(p, was)| state(p) != *was)
                .map(|(p, _)| p.clone())
        };
        named()
            .or_else(|| self.changed_on_the_way())
            .or_else(|| self.changed_below())
    }

    /// [`Configs::changed`] below the checks' folders: a folder made since the start is
    /// compared with one holding no configuration; one gone since is not compared (what it
    /// held is no longer read).
    fn changed_below(&self) -> Option<PathBuf> {
        let none = BTreeMap::new();
        self.below.iter().find_map(|(root, was)| {
            let now = walk(root, &self.writable);
            now.iter()
                .find_map(|(dir, map)| {
                    let before = was.get(dir).unwrap_or(&none);
                    let name = (before.iter())
                        .find(|(n, s)| map.get(*n) != Some(s))
                        .map(|(n, _)| n)
                        .or_else(|| map.keys().find(|n| !before.contains_key(*n)))?;
                    Some(path_of(dir, name))
                })
                // A folder there at the start that is now a link or a file: the walk does
                // not follow it, and node does (rev50e 03: `app` swapped for a link to a
                // folder holding a `.mocharc.yml`).
                .or_else(|| {
                    (was.keys())
                        .filter(|d| !now.contains_key(*d))
                        .find(|d| fs::symlink_metadata(d).is_ok_and(|m| !m.is_dir()))
                        .cloned()
                })
        })
    }

    /// [`Configs::changed`] in the folders on the checks' way.
    fn changed_on_the_way(&self) -> Option<PathBuf> {
        self.folders.iter().find_map(|(dir, was)| {
            let now = snapshot(dir);
            let name = (was.iter())
                .find(|(n, s)| now.get(*n) != Some(s))
                .map(|(n, _)| n)
                .or_else(|| now.keys().find(|n| !was.contains_key(*n)))?;
            Some(path_of(dir, name))
        })
    }

    /// The first recorded configuration file whose change time may be later than
    /// `started` (see [`super::packages::after`]): on `--resume`, what was recorded now may
    /// be what a trial of the first part wrote.
    pub fn written_since(&self, started: &str) -> Option<PathBuf> {
        let named = self.named.iter().map(|(p, _)| p).find(|p| {
            fs::symlink_metadata(p)
                .is_ok_and(|m| super::packages::after((m.ctime(), m.ctime_nsec()), started))
        });
        if let Some(p) = named {
            return Some(p.clone());
        }
        let below = self.below.iter().flat_map(|(_, m)| m.iter());
        (self.folders.iter().map(|(d, m)| (d, m)))
            .chain(below)
            .find_map(|(dir, was)| {
                was.keys()
                    .filter(|n| !n.as_bytes().starts_with(b"/"))
                    .map(|n| dir.join(n))
                    .find(|p| {
                        fs::symlink_metadata(p).is_ok_and(|m| {
                            super::packages::after((m.ctime(), m.ctime_nsec()), started)
                        })
                    })
            })
    }

    /// The first check's folder whose walk stopped at [`WALK_ENTRIES`] when the run
    /// started: a configuration past the bound is not compared (rev50e 04, 15).
    pub fn partial(&self) -> Option<&Path> {
        (self.below.iter())
            .find(|((_, root), m)| {
                m.get(root)
                    .is_some_and(|x| x.contains_key(OsStr::new("/walk")))
            })
            .map(|((_, root), _)| root.as_path())
    }

    /// Why a check may not run when `path` is [`Configs::changed`]: a file a check names by
    /// an option is a configuration whatever its name.
    pub fn refusal(&self, path: &Path) -> String {
        if self.named.iter().any(|(p, _)| p == path) {
            return format!(
                "`{}` changed during the run (it appeared, went, or was rewritten; a trial did \
                 it): the check hands it to a tool by an option (`--config`, `--require`, \
                 `--env-file`, …), so the check could run as the trial set it up; the check was \
                 not run and no verdict is published (keep the files a grader names outside the \
                 folders the trials write)",
                path.display()
            );
        }
        refusal(path)
    }

    /// Whether no folder is watched (no check runs node).
    pub fn is_empty(&self) -> bool {
        self.folders.is_empty() && self.below.is_empty() && self.named.is_empty()
    }
}

/// The key of a folder's `package.json` fields that tools read as configuration
/// ([`tool_fields`]).
const TOOL_FIELDS_KEY: &str = "/package.json#tools";

/// The `package.json` fields that test runners and transforms read as their configuration,
/// each naming code they load (`require`, `setupFiles`, `presets`, `plugins`, …).
const TOOL_FIELDS: &[&str] = &["jest", "mocha", "babel", "ava", "nyc", "c8", "vitest"];

/// The [`TOOL_FIELDS`] of the `package.json` at `p` now, as text, or `None` where it has
/// none (a file gate cannot read as JSON by its hash: what tools read of it is unknown).
fn tool_fields(p: &Path) -> Option<String> {
    let Ok(text) = crate::input::read_regular(p, 4 << 20) else {
        return Some(state(p));
    };
    let body = text.strip_prefix(b"\xef\xbb\xbf").unwrap_or(&text);
    match serde_json::from_slice::<serde_json::Value>(body) {
        Ok(v) => {
            let fields: Vec<(&str, &serde_json::Value)> = (TOOL_FIELDS.iter())
                .filter_map(|f| v.get(*f).map(|x| (*f, x)))
                .collect();
            (!fields.is_empty()).then(|| format!("{fields:?}"))
        }
        Err(_) => Some(format!("not JSON: {}", crate::ledger::sha256_hex(&text))),
    }
}

/// The path a key of a configuration map names in folder `dir`.
fn path_of(dir: &Path, name: &OsStr) -> PathBuf {
    if name == TOOL_FIELDS_KEY {
        return dir.join("package.json");
    }
    if let Some(link) = name.as_bytes().strip_prefix(b"/link:") {
        return dir.join(OsStr::from_bytes(link));
    }
    match name.as_bytes().strip_prefix(b"/extends:") {
        Some(rest) => PathBuf::from(OsStr::from_bytes(rest)),
        None if name.as_bytes().starts_with(b"/") => dir.to_path_buf(),
        None => dir.join(name),
    }
}

/// Whether `path`'s own name is a configuration name ([`is_config`]).
fn is_config_path(path: &Path) -> bool {
    path.file_name().is_some_and(is_config)
}

/// Why a check may not run when `path` is [`Configs::changed`].
pub fn refusal(path: &Path) -> String {
    if !is_config_path(path)
        && (fs::symlink_metadata(path)).map_or(true, |m| m.file_type().is_symlink())
    {
        return format!(
            "`{}` is a link to a folder that appeared, went, or was re-pointed during the run, \
             or a folder there when the run started that is now a link (a trial did it), \
             where the check's tools may run: node and the tools the check runs follow it to \
             what the trial put there; the check was not run and no verdict is published",
            path.display()
        );
    }
    format!(
        "`{}` changed during the run (it appeared, went, or was rewritten; a trial did it), \
         where the check's tools may run (on the check's way, or below the top of its \
         writable root): a tool the check runs reads it as configuration, so the check could \
         run as the trial set it up; the check was not run and no verdict is published (keep \
         the grader's tools and their configuration outside the folders the trials write, or \
         run the grader from its own folder)",
        path.display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configs_a_new_rewritten_or_removed_config_is_a_change_and_other_files_are_not() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path();
        fs::write(p.join("tsconfig.json"), "{}").unwrap();
        fs::create_dir(p.join("config")).unwrap();
        fs::write(p.join("config/default.json"), "{}").unwrap();
        let c = Configs::take(&[p.to_path_buf()], &[], &[], &[]);
        assert_eq!(c.changed(), None);
        // An answer file, a source file: not configuration.
        fs::write(p.join("result.txt"), "x").unwrap();
        fs::write(p.join("index.js"), "x").unwrap();
        assert_eq!(c.changed(), None);
        fs::write(p.join(".env.test"), "A=1").unwrap();
        assert_eq!(c.changed(), Some(p.join(".env.test")));
        fs::remove_file(p.join(".env.test")).unwrap();
        assert_eq!(c.changed(), None);
        fs::write(p.join("config/local.js"), "x").unwrap();
        assert!(c.changed().is_some_and(|f| f.starts_with(p.join("config"))));
        fs::remove_file(p.join("config/local.js")).unwrap();
        // Removing it moved the folder's change time: still a change.
        assert!(c.changed().is_some());
        let c = Configs::take(&[p.to_path_buf()], &[], &[], &[]);
        fs::write(p.join("tsconfig.json"), "{\"x\":1}").unwrap();
        assert_eq!(c.changed(), Some(p.join("tsconfig.json")));
        assert!(is_config(OsStr::new(".mocharc.yml")));
        assert!(is_config(OsStr::new("tsconfig.base.json")));
        assert!(!is_config(OsStr::new("package.json")));
    }

    /// A folder with `n` files in it.
    fn fill(dir: &Path, n: usize) {
        fs::create_dir_all(dir).unwrap();
        for i in 0..n {
            fs::write(dir.join(format!("f{i}")), "x").unwrap();
        }
    }

    #[test]
    fn walk_reads_the_check_s_own_folders_before_where_links_lead_and_environments_by_folders() {
        let d = tempfile::tempdir().unwrap();
        let p = fs::canonicalize(d.path()).unwrap();
        let (task, shared) = (p.join("task"), p.join("shared"));
        // Review 51, 03: a link into a large writable folder, listed before a sibling of
        // the task's own: the sibling is read all the same.
        fill(&shared.join("big"), 100);
        fs::create_dir_all(task.join("z")).unwrap();
        std::os::unix::fs::symlink(shared.join("big"), task.join("a")).unwrap();
        std::os::unix::fs::symlink(shared.join("big"), task.join("z/data")).unwrap();
        fs::create_dir_all(task.join("pb")).unwrap();
        let w = walk_bounded(
            std::slice::from_ref(&task),
            &task,
            std::slice::from_ref(&shared),
            50,
        );
        assert!(w.contains_key(&task.join("pb")), "{:?}", w.keys());
        assert!(w[&task].contains_key(OsStr::new("/walk")));
        // Review 51b, 06: a monorepo made writable whole, a large sibling of the check's
        // folder: the check's own folders are read first.
        fill(&p.join("data"), 100);
        fs::create_dir_all(p.join("app/src")).unwrap();
        let w = walk_bounded(&[p.join("app")], &p, &[], 50);
        assert!(w.contains_key(&p.join("app/src")), "{:?}", w.keys());
        assert!(w[&p].contains_key(OsStr::new("/walk")));
        // Review 51, 04: a large environment counts its folders, not its files.
        fill(&task.join(".venv/lib/site"), 100);
        let w = walk_bounded(std::slice::from_ref(&task), &task, &[], 50);
        assert!(
            !w[&task].contains_key(OsStr::new("/walk")),
            "{:?}",
            w[&task]
        );
        assert!(w.contains_key(&task.join(".venv/lib/site")));
    }

    #[test]
    fn walk_reads_each_folder_links_lead_to_once() {
        // Review 51, 07: nine folders each linking to every other took (K-1)! paths.
        let d = tempfile::tempdir().unwrap();
        let p = fs::canonicalize(d.path()).unwrap();
        let (task, shared) = (p.join("task"), p.join("shared"));
        for i in 0..9 {
            fs::create_dir_all(shared.join(format!("s{i}"))).unwrap();
        }
        for i in 0..9 {
            for j in (0..9).filter(|&j| j != i) {
                let at = shared.join(format!("s{i}/l{j}"));
                std::os::unix::fs::symlink(shared.join(format!("s{j}")), at).unwrap();
            }
        }
        fs::create_dir_all(&task).unwrap();
        std::os::unix::fs::symlink(shared.join("s1"), task.join("l")).unwrap();
        let w = walk_bounded(
            std::slice::from_ref(&task),
            &task,
            std::slice::from_ref(&shared),
            1000,
        );
        assert_eq!(w.len(), 10, "{:?}", w.keys());
        assert!(!w[&task].contains_key(OsStr::new("/walk")));
    }

    #[test]
    fn a_link_re_pointed_into_a_folder_the_walk_leaves_out_is_a_change() {
        // Review 51, 06: `app -> packages/app` at the start; the trial writes a
        // configuration into `.venv/x` (or `node_modules/x`, `.git/x`) and points `app`
        // there. The walk read neither.
        for hidden in [".venv", "node_modules", ".git"] {
            let d = tempfile::tempdir().unwrap();
            let p = fs::canonicalize(d.path()).unwrap();
            fs::create_dir_all(p.join("packages/app")).unwrap();
            std::os::unix::fs::symlink("packages/app", p.join("app")).unwrap();
            let c = Configs::take(
                &[],
                &[(p.clone(), p.clone())],
                std::slice::from_ref(&p),
                &[],
            );
            assert_eq!(c.changed(), None, "{hidden}");
            let x = p.join(hidden).join("x");
            fs::create_dir_all(&x).unwrap();
            fs::write(x.join(".mocharc.yml"), "require: ./evil.js\n").unwrap();
            assert_eq!(c.changed(), None, "{hidden}: nothing leads there yet");
            fs::remove_file(p.join("app")).unwrap();
            std::os::unix::fs::symlink(format!("{hidden}/x"), p.join("app")).unwrap();
            // The link re-pointed is a change, and so is what it leads to now.
            let changed = c.changed();
            assert!(
                changed == Some(p.join("app")) || changed == Some(x.join(".mocharc.yml")),
                "{hidden}: {changed:?}"
            );
            let w = walk(&(vec![p.clone()], p.clone()), std::slice::from_ref(&p));
            assert!(w[&x].contains_key(OsStr::new(".mocharc.yml")), "{hidden}");
        }
    }

    #[test]
    fn a_link_made_or_re_pointed_anywhere_is_a_change_and_a_folder_below_one_read_is_read() {
        let d = tempfile::tempdir().unwrap();
        let p = fs::canonicalize(d.path()).unwrap();
        let (task, out) = (p.join("task"), p.join("elsewhere"));
        fs::create_dir_all(task.join("packages/app")).unwrap();
        fs::create_dir_all(&out).unwrap();
        std::os::unix::fs::symlink("packages/app", task.join("app")).unwrap();
        // Review 51b, 01: a link to `.venv` read first, then `app` re-pointed into its
        // `node_modules`, which the read of `.venv` left out.
        fs::create_dir_all(task.join(".venv/node_modules/evil")).unwrap();
        std::os::unix::fs::symlink(".venv", task.join("x")).unwrap();
        let roots = [(task.clone(), task.clone())];
        let c = Configs::take(&[], &roots, std::slice::from_ref(&task), &[]);
        let evil = task.join(".venv/node_modules/evil");
        fs::write(evil.join(".mocharc.yml"), "require: ./e.js\n").unwrap();
        assert_eq!(c.changed(), None);
        fs::remove_file(task.join("app")).unwrap();
        std::os::unix::fs::symlink(&evil, task.join("app")).unwrap();
        assert!(c.changed().is_some());
        let w = walk(
            &(vec![task.clone()], task.clone()),
            std::slice::from_ref(&task),
        );
        assert!(
            w[&evil].contains_key(OsStr::new(".mocharc.yml")),
            "{:?}",
            w.keys()
        );
        // Review 51b, 03: a link into a folder no root names (a trial's own `TMPDIR`), made
        // in the run: a change, though the walk does not follow it.
        let c = Configs::take(&[], &roots, std::slice::from_ref(&task), &[]);
        std::os::unix::fs::symlink(&out, task.join("packages/tmp")).unwrap();
        assert_eq!(c.changed(), Some(task.join("packages/tmp")));
        assert!(refusal(&task.join("packages/tmp")).contains("is a link to a folder"));
        // An honest agent's `python -m venv env` (`env/lib64 -> lib`), a link into the task:
        // no change.
        let c = Configs::take(&[], &roots, std::slice::from_ref(&task), &[]);
        fs::create_dir_all(task.join("env/lib")).unwrap();
        std::os::unix::fs::symlink("lib", task.join("env/lib64")).unwrap();
        assert_eq!(c.changed(), None);
    }
}
