//! Where a command's reports go — `--junit`, `--summary`, `--json` and the CI's step summary
//! (`$GITHUB_STEP_SUMMARY`) — checked once before anything runs and again at the moment each
//! report is written, so that nothing a task does during the run can redirect them.
//!
//! [`preflight`] is the one check of report paths, used by every command that writes reports
//! (`run`, `ingest`, `report`, and `gate plan --svg`). Before any trial runs it refuses a report path that is a
//! directory, a FIFO, a device or a symbolic link, and any two paths that name one file — a
//! report over the ledger, its lock file, the plan, an input, or another report (by device and
//! inode, so a hard link or another spelling is caught). It then opens each report's folder
//! once and keeps the descriptor.
//!
//! [`Outputs::write`] writes a report into a fresh file created in that folder (`openat` with
//! `O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK`) and renames it over the report's name
//! (`renameat`): a symlink, FIFO or hard link a task put at the name is replaced, never written
//! through, and a report is never half-written. Just before, the name is checked again: if it
//! has become a symlink, a FIFO, a device, another name of a guarded file, or its folder is no
//! longer the one opened at the start, the report is not written and the command fails (exit
//! 4) saying why in one line: a verdict a task could have shaped is not published.
//!
//! The step summary is the runner's file, appended to: it is opened (in the folder kept from
//! the start) with `O_APPEND | O_NOFOLLOW | O_NONBLOCK`, must be a regular file by `fstat` of
//! the descriptor opened, must be the same file as at the start, and no guarded file.

use std::ffi::{CString, OsStr, OsString};
use std::fs::File;
use std::io::{self, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use rustix::fs::{AtFlags, Mode, OFlags, Stat};
use rustix::io::Errno;

/// A boxed cause, for errors whose source is not one of gate's own types.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Why a report destination was refused or a report was not written. [`crate::Error`] turns
/// each kind into its variant of the same name, and so into the same exit code: a refused
/// path is a usage error (2), a report not written or tampered with a harness error (4).
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// A report path that cannot be used (exit 2).
    #[error("{0}")]
    Usage(String),
    /// A report path that cannot be inspected, with the reason from below (exit 2).
    #[error("{context}")]
    Input {
        /// The flag and the path.
        context: String,
        /// Why it failed.
        #[source]
        source: Cause,
    },
    /// A report that could not be written (exit 4).
    #[error("{context}")]
    Output {
        /// What was being written.
        context: String,
        /// Why it failed.
        #[source]
        source: Cause,
    },
    /// A destination changed since the preflight: nothing is published (exit 4).
    #[error("{0}")]
    Harness(String),
}

impl PublishError {
    /// A [`PublishError::Input`] from any error.
    pub fn input(context: impl Into<String>, source: impl Into<Cause>) -> Self {
        PublishError::Input {
            context: context.into(),
            source: source.into(),
        }
    }

    /// A [`PublishError::Output`] from any error.
    pub fn output(context: impl Into<String>, source: impl Into<Cause>) -> Self {
        PublishError::Output {
            context: context.into(),
            source: source.into(),
        }
    }
}

/// The report files a command was asked for, as paths (`-` means stdout).
#[derive(Debug, Clone, Copy, Default)]
pub struct Request<'a> {
    /// `--junit`.
    pub junit: Option<&'a Path>,
    /// `--summary`.
    pub summary: Option<&'a Path>,
    /// `--json`.
    pub json: Option<&'a Path>,
    /// `gate plan --svg`.
    pub svg: Option<&'a Path>,
    /// `$GITHUB_STEP_SUMMARY`, unless `--no-step-summary` (appended to).
    pub step_summary: Option<&'a Path>,
}

/// A file of the command that no report may name: the ledger, the plan, an input.
#[derive(Debug, Clone, Copy)]
pub struct Guarded<'a> {
    /// How the user named it (`--ledger`, `the plan file`, `a ledger given`).
    pub what: &'a str,
    /// Its path.
    pub path: &'a Path,
    /// Whether this command writes it (a ledger being written must be a file path, and
    /// two names of it clash even with each other); read-only inputs may repeat.
    pub written: bool,
    /// Whether it is a ledger, whose lock file is then guarded too.
    pub ledger: bool,
}

impl<'a> Guarded<'a> {
    /// The ledger the command writes (`--ledger`).
    pub fn written_ledger(path: &'a Path) -> Self {
        let mut g = Self::read("--ledger", path, true);
        g.written = true;
        g
    }

    /// A file the command only reads: the plan, a result file, or (`ledger`) a ledger.
    pub fn read(what: &'a str, path: &'a Path, ledger: bool) -> Self {
        let written = false;
        Guarded {
            what,
            path,
            written,
            ledger,
        }
    }
}

/// Which report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The JUnit XML report.
    Junit,
    /// The Markdown summary.
    Summary,
    /// The JSON report.
    Json,
    /// `gate plan`'s OC and ASN chart.
    Svg,
}

impl Kind {
    fn flag(self) -> &'static str {
        match self {
            Kind::Junit => "--junit",
            Kind::Summary => "--summary",
            Kind::Json => "--json",
            Kind::Svg => "--svg",
        }
    }
}

/// A file's identity: device and inode.
type Id = (u64, u64);

/// A report file's folder, opened once at the start, and the file's name in it.
#[derive(Debug)]
struct Slot {
    /// What the user wrote, for messages.
    path: PathBuf,
    /// The folder as spelled (`.` for a bare name), to see whether it still is `dir`.
    dir_path: PathBuf,
    dir: OwnedFd,
    name: OsString,
    /// The file at the name at the start, if there was one.
    at_start: Option<Id>,
}

/// The checked destinations of one command's reports; see the module docs.
pub struct Outputs {
    files: Vec<(Kind, Slot)>,
    /// Redaction of a rendered report's final text ([`Outputs::scrub_with`]), or none.
    scrub: Option<Scrub>,
    stdout: Option<Kind>,
    /// The step summary's folder could not be opened at the start: appending is then a
    /// warning only (the CI's page is not a file the user asked for).
    step_summary: Option<Result<Slot, (PathBuf, String)>>,
    /// Guarded paths and the files they were at the start.
    guarded: Vec<(String, PathBuf, Option<Id>)>,
}

/// What redacts a rendered report's final text: the command's own redaction, which this
/// module does not know.
type Scrub = Box<dyn Fn(&str) -> String + Send + Sync>;

impl std::fmt::Debug for Outputs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outputs")
            .field("files", &self.files)
            .field("stdout", &self.stdout)
            .field("step_summary", &self.step_summary)
            .field("guarded", &self.guarded)
            .field("scrub", &self.scrub.is_some())
            .finish()
    }
}

/// Check the report paths of a command before it runs anything, and open their folders.
/// `guarded` lists the command's own files (ledger, plan, inputs); each ledger's lock file is
/// added. Errors are usage errors (exit 2).
pub fn preflight(req: &Request, guarded: &[Guarded]) -> Result<Outputs, PublishError> {
    let named = [
        (Kind::Junit, req.junit),
        (Kind::Summary, req.summary),
        (Kind::Json, req.json),
        (Kind::Svg, req.svg),
    ];
    // Named in messages in the order of `gate run --help`.
    let dashes: Vec<&str> = [
        (Kind::Json, req.json),
        (Kind::Junit, req.junit),
        (Kind::Summary, req.summary),
        (Kind::Svg, req.svg),
    ]
    .iter()
    .filter(|(_, p)| p.is_some_and(is_stdout))
    .map(|(k, _)| k.flag())
    .collect();
    if dashes.len() > 1 {
        return Err(PublishError::Usage(format!(
            "only one report can go to stdout, but {} are {} `-`; write the others to files",
            dashes.join(" and "),
            if dashes.len() == 2 { "both" } else { "all" }
        )));
    }
    let stdout = named
        .iter()
        .find(|(_, p)| p.is_some_and(is_stdout))
        .map(|(k, _)| *k);

    // The command's own files, with the lock file of every ledger.
    let mut own: Vec<(String, PathBuf, bool)> = Vec::new();
    for g in guarded {
        if g.written {
            refuse_non_file(g.what, g.path)?;
        }
        own.push((g.what.to_string(), g.path.to_path_buf(), g.written));
    }
    for g in guarded.iter().filter(|g| g.ledger) {
        let lock = crate::ledger::lock_path(g.path);
        if !own.iter().any(|(_, p, _)| *p == lock) {
            own.push(("the ledger's lock file".into(), lock, false));
        }
    }

    let reports: Vec<(Kind, &Path)> = named
        .iter()
        .filter_map(|(k, p)| p.filter(|p| !is_stdout(p)).map(|p| (*k, p)))
        .collect();
    let mut outputs: Vec<(&str, &Path)> = reports.iter().map(|(k, p)| (k.flag(), *p)).collect();
    if let Some(p) = req.step_summary {
        outputs.push(("$GITHUB_STEP_SUMMARY", p));
    }
    for (flag, path) in &outputs {
        refuse_non_file(flag, path)?;
    }
    // Folders first (created), so that paths through them compare by what they resolve to.
    let mut files = Vec::new();
    for (kind, path) in reports {
        let slot = open_slot(path, true)
            .map_err(|e| PublishError::input(format!("`{} {}`", kind.flag(), path.display()), e))?;
        files.push((kind, slot));
    }
    let step_summary = req
        .step_summary
        .map(|p| open_slot(p, false).map_err(|e| (p.to_path_buf(), e.to_string())));
    // Two outputs naming one file, or an output naming a guarded file, or two names of a
    // file this command writes.
    // Named in this order in messages: the files this command writes, its reports, its
    // inputs.
    let own_named = |written: bool| {
        own.iter()
            .filter(move |(_, _, w)| *w == written)
            .map(|(w, p, written)| (w.as_str(), p.as_path(), *written))
    };
    let all: Vec<(&str, &Path, bool)> = own_named(true)
        .chain(outputs.iter().map(|(f, p)| (*f, *p, true)))
        .chain(own_named(false))
        .collect();
    for (i, (a, pa, wa)) in all.iter().enumerate() {
        for (b, pb, wb) in &all[i + 1..] {
            if (*wa || *wb) && crate::input::same_file(pa, pb) {
                return Err(PublishError::Usage(format!(
                    "{a} and {b} name the same file; every report needs its own path, apart from the ledger, the plan and the inputs"
                )));
            }
        }
    }

    let guarded = own
        .into_iter()
        .map(|(what, path, _)| {
            let id = id_of(&path);
            (what, path, id)
        })
        .collect();
    Ok(Outputs {
        files,
        scrub: None,
        stdout,
        step_summary,
        guarded,
    })
}

/// Refuse a path that exists and is not a regular file (a directory, FIFO, device, socket),
/// naming the flag. A symbolic link to a regular file is the user's own choice here; report
/// names are checked without following links in [`open_slot`].
fn refuse_non_file(flag: &str, path: &Path) -> Result<(), PublishError> {
    if path.is_dir() {
        return Err(PublishError::Usage(format!(
            "`{flag} {}`: is a directory; give a file path",
            path.display()
        )));
    }
    crate::input::check_output(path)
        .map_err(|e| PublishError::Usage(format!("`{flag} {}`: {e}", path.display())))
}

/// Whether a report path means stdout.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

fn id_of(path: &Path) -> Option<Id> {
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

fn cstr(s: &OsStr) -> io::Result<CString> {
    CString::new(s.as_bytes()).map_err(|_| io::Error::other("the path holds a NUL byte"))
}

/// Open a report's folder (creating it when `create`) and look at its name without
/// following a link: it must be absent or a regular file.
fn open_slot(path: &Path, create: bool) -> io::Result<Slot> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::other("names no file; give a file path"))?
        .to_os_string();
    let dir_path = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    if create {
        std::fs::create_dir_all(&dir_path).map_err(|e| {
            io::Error::new(
                e.kind(),
                format!("cannot create `{}`: {e}", dir_path.display()),
            )
        })?;
    }
    let c = cstr(dir_path.as_os_str())?;
    let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let dir = rustix::fs::open(c.as_c_str(), flags, Mode::empty()).map_err(|e| {
        let e = io::Error::from(e);
        io::Error::new(
            e.kind(),
            format!("cannot open the folder `{}`: {e}", dir_path.display()),
        )
    })?;
    let at_start = match lstat_at(&dir, &name)? {
        None => None,
        Some(st) if is_regular(&st) => Some((st.st_dev, st.st_ino)),
        Some(st) => return Err(io::Error::other(format!("is {}", kind_of(&st)))),
    };
    Ok(Slot {
        path: path.to_path_buf(),
        dir_path,
        dir,
        name,
        at_start,
    })
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`; `None` when there is no such name.
fn lstat_at(dir: &OwnedFd, name: &OsStr) -> io::Result<Option<Stat>> {
    let c = cstr(name)?;
    match rustix::fs::statat(dir, c.as_c_str(), AtFlags::SYMLINK_NOFOLLOW) {
        Ok(st) => Ok(Some(st)),
        Err(Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

fn fstat(fd: &impl AsFd) -> io::Result<Stat> {
    Ok(rustix::fs::fstat(fd)?)
}

fn is_regular(st: &Stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFREG
}

fn kind_of(st: &Stat) -> &'static str {
    match st.st_mode & libc::S_IFMT {
        libc::S_IFLNK => "a symbolic link (give the file's own path)",
        libc::S_IFIFO => "a FIFO, not a regular file",
        libc::S_IFCHR => "a character device, not a regular file",
        libc::S_IFBLK => "a block device, not a regular file",
        libc::S_IFSOCK => "a socket, not a regular file",
        libc::S_IFDIR => "a directory; give a file path",
        _ => "not a regular file",
    }
}

/// Why a report is refused at write time: one line, naming the report.
fn tampered(flag: &str, path: &Path, what: impl std::fmt::Display) -> PublishError {
    PublishError::Harness(format!(
        "`{flag} {}`: {what} since the run started, so no report is written there and no verdict is published (a task may have redirected it)",
        path.display()
    ))
}

impl Outputs {
    /// Outputs of a command that writes no report files (tests, `--no-step-summary`).
    pub fn none() -> Outputs {
        Outputs {
            files: Vec::new(),
            scrub: None,
            stdout: None,
            step_summary: None,
            guarded: Vec::new(),
        }
    }

    /// Redact every rendered report's final text with `f` before it is written (the
    /// Markdown, the JSON, the annotations): an encoding of the report (a chart title's
    /// `_` for every character it cannot show, a control character as a blank) can make a
    /// secret of text that was none when it was redacted (review 50, rev50a 16).
    pub fn scrub_with(&mut self, f: impl Fn(&str) -> String + Send + Sync + 'static) {
        self.scrub = Some(Box::new(f));
    }

    /// Whether a redaction was set ([`Outputs::scrub_with`]).
    pub fn scrubs(&self) -> bool {
        self.scrub.is_some()
    }

    /// `text` as [`Outputs::scrub_with`] redacts it (as it is where nothing was set).
    pub fn scrubbed<'a>(&self, text: &'a str) -> std::borrow::Cow<'a, str> {
        match &self.scrub {
            Some(f) => std::borrow::Cow::Owned(f(text)),
            None => std::borrow::Cow::Borrowed(text),
        }
    }

    /// Every file this command will write: its report files and the step summary (the
    /// box keeps them out of a trial's reach).
    pub fn file_paths(&self) -> Vec<PathBuf> {
        let summary = match &self.step_summary {
            Some(Ok(slot)) => Some(slot.path.clone()),
            Some(Err((path, _))) => Some(path.clone()),
            None => None,
        };
        self.files
            .iter()
            .map(|(_, slot)| slot.path.clone())
            .chain(summary)
            .collect()
    }

    /// Whether a report goes to stdout (the human summary then goes to stderr).
    pub fn to_stdout(&self) -> bool {
        self.stdout.is_some()
    }

    /// Whether this report was asked for (as a file or on stdout).
    pub fn wants(&self, kind: Kind) -> bool {
        self.stdout == Some(kind) || self.files.iter().any(|(k, _)| *k == kind)
    }

    /// Whether this report goes to stdout.
    pub fn on_stdout(&self, kind: Kind) -> bool {
        self.stdout == Some(kind)
    }

    /// Whether the step summary is to be appended to.
    pub fn wants_step_summary(&self) -> bool {
        self.step_summary.is_some()
    }

    /// The path of the report file of this kind, if one was asked for.
    pub fn path(&self, kind: Kind) -> Option<&Path> {
        self.files
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|(_, s)| s.path.as_path())
    }

    /// Check every destination again, before writing any: a run whose reports were tampered
    /// with publishes none of them.
    pub fn recheck(&self) -> Result<(), PublishError> {
        for (kind, slot) in &self.files {
            self.check_slot(kind.flag(), slot, false)?;
        }
        if let Some(Ok(slot)) = &self.step_summary {
            self.check_slot("$GITHUB_STEP_SUMMARY", slot, true)?;
        }
        Ok(())
    }

    /// The name and folder of `slot` as they are now: still the folder opened at the start,
    /// and at the name nothing, or a regular file that is no guarded file (and, for a file
    /// appended to, the file that was there at the start).
    fn check_slot(&self, flag: &str, slot: &Slot, same_as_start: bool) -> Result<(), PublishError> {
        let dir_now = std::fs::metadata(&slot.dir_path).ok();
        let dir_then = fstat(&slot.dir).map_err(|e| {
            PublishError::output(
                format!("cannot inspect the folder of `{}`", slot.path.display()),
                e,
            )
        })?;
        let moved = match &dir_now {
            Some(m) => m.dev() != dir_then.st_dev || m.ino() != dir_then.st_ino,
            None => true,
        };
        if moved {
            return Err(tampered(
                flag,
                &slot.path,
                format_args!(
                    "its folder `{}` was moved or replaced",
                    slot.dir_path.display()
                ),
            ));
        }
        let now = lstat_at(&slot.dir, &slot.name).map_err(|e| {
            PublishError::output(format!("cannot inspect `{}`", slot.path.display()), e)
        })?;
        let Some(st) = now else {
            if same_as_start && slot.at_start.is_some() {
                return Err(tampered(flag, &slot.path, "it was removed"));
            }
            return Ok(());
        };
        if !is_regular(&st) {
            return Err(tampered(
                flag,
                &slot.path,
                format_args!("it became {}", kind_of(&st)),
            ));
        }
        self.refuse_guarded(flag, &slot.path, (st.st_dev, st.st_ino))?;
        if same_as_start && slot.at_start.is_some_and(|id| id != (st.st_dev, st.st_ino)) {
            return Err(tampered(
                flag,
                &slot.path,
                "it was replaced by another file",
            ));
        }
        Ok(())
    }

    /// Refuse a destination that is (now) one of the guarded files.
    fn refuse_guarded(&self, flag: &str, path: &Path, id: Id) -> Result<(), PublishError> {
        for (what, gpath, then) in &self.guarded {
            if *then == Some(id) || id_of(gpath) == Some(id) {
                return Err(tampered(
                    flag,
                    path,
                    format_args!("it became another name of {what}"),
                ));
            }
        }
        Ok(())
    }

    /// Write one report file: checked again, written to a fresh file in the folder opened at
    /// the start, renamed over its name.
    pub fn write(&self, kind: Kind, text: &str) -> Result<(), PublishError> {
        self.write_with(kind, &|w| w.write_all(text.as_bytes()))
    }

    /// As [`Outputs::write`], the content written by `content` (buffered) as it is made.
    pub fn write_with(
        &self,
        kind: Kind,
        content: &dyn Fn(&mut dyn Write) -> io::Result<()>,
    ) -> Result<(), PublishError> {
        let Some((_, slot)) = self.files.iter().find(|(k, _)| *k == kind) else {
            return Ok(());
        };
        let flag = kind.flag();
        self.check_slot(flag, slot, false)?;
        let failed = |e: io::Error| {
            PublishError::output(format!("cannot write `{}`", slot.path.display()), e)
        };
        static SEQ: AtomicU64 = AtomicU64::new(0);
        let mut tmp = OsString::from(".");
        tmp.push(&slot.name);
        tmp.push(format!(
            ".gate-{}-{}.tmp",
            std::process::id(),
            SEQ.fetch_add(1, Ordering::Relaxed)
        ));
        let ctmp = cstr(&tmp).map_err(failed)?;
        // O_EXCL|O_NOFOLLOW: a name a task prepared is never opened.
        let fd = rustix::fs::openat(
            &slot.dir,
            ctmp.as_c_str(),
            OFlags::WRONLY
                | OFlags::CREATE
                | OFlags::EXCL
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        )
        .map_err(|e| failed(e.into()))?;
        let mut file = io::BufWriter::with_capacity(1 << 16, File::from(fd));
        let unlink = || {
            let _ = rustix::fs::unlinkat(&slot.dir, ctmp.as_c_str(), AtFlags::empty());
        };
        if let Err(e) = content(&mut file).and_then(|()| file.flush()) {
            unlink();
            return Err(failed(e));
        }
        drop(file);
        // The last look before the rename: the report replaces the name, whatever is
        // there, but a name turned into a guarded file or a folder moved is refused.
        if let Err(e) = self.check_slot(flag, slot, false) {
            unlink();
            return Err(e);
        }
        let cname = cstr(&slot.name).map_err(failed)?;
        if let Err(e) =
            rustix::fs::renameat(&slot.dir, ctmp.as_c_str(), &slot.dir, cname.as_c_str())
        {
            unlink();
            return Err(failed(e.into()));
        }
        Ok(())
    }

    /// Append to the step summary. `Err` when it was tampered with (no verdict is
    /// published); `Ok(Some(warning))` when it could not be appended to for an ordinary
    /// reason (a missing folder, no permission), which changes no exit code.
    pub fn append_step_summary(&self, text: &str) -> Result<Option<String>, PublishError> {
        let Some(slot) = &self.step_summary else {
            return Ok(None);
        };
        let warning = |path: &Path, e: &dyn std::fmt::Display| {
            Ok(Some(format!(
                "warning: cannot append the summary to `{}` (GITHUB_STEP_SUMMARY): {e}",
                path.display()
            )))
        };
        let slot = match slot {
            Ok(s) => s,
            Err((path, e)) => return warning(path, e),
        };
        let flag = "$GITHUB_STEP_SUMMARY";
        self.check_slot(flag, slot, true)?;
        let cname = match cstr(&slot.name) {
            Ok(c) => c,
            Err(e) => return warning(&slot.path, &e),
        };
        // A summary that was not there at the start may be created; one that was is
        // appended to only if it is still the same file.
        let create = if slot.at_start.is_none() {
            OFlags::CREATE
        } else {
            OFlags::empty()
        };
        let fd = rustix::fs::openat(
            &slot.dir,
            cname.as_c_str(),
            OFlags::WRONLY
                | OFlags::APPEND
                | OFlags::NOFOLLOW
                | OFlags::NONBLOCK
                | OFlags::NOCTTY
                | OFlags::CLOEXEC
                | create,
            Mode::from_raw_mode(0o666),
        );
        let fd = match fd {
            Ok(fd) => fd,
            // O_NOFOLLOW on a symlink; O_NONBLOCK on a FIFO without a reader.
            Err(Errno::LOOP) => {
                return Err(tampered(flag, &slot.path, "it became a symbolic link"));
            }
            Err(Errno::NXIO) => return Err(tampered(flag, &slot.path, "it became a FIFO")),
            Err(Errno::NOENT) => return Err(tampered(flag, &slot.path, "it was removed")),
            Err(e) => return warning(&slot.path, &io::Error::from(e)),
        };
        let mut file = File::from(fd);
        let st = fstat(&file).map_err(|e| {
            PublishError::output(format!("cannot inspect `{}`", slot.path.display()), e)
        })?;
        if !is_regular(&st) {
            return Err(tampered(
                flag,
                &slot.path,
                format_args!("it became {}", kind_of(&st)),
            ));
        }
        let id = (st.st_dev, st.st_ino);
        self.refuse_guarded(flag, &slot.path, id)?;
        if slot.at_start.is_some_and(|then| then != id) {
            return Err(tampered(
                flag,
                &slot.path,
                "it was replaced by another file",
            ));
        }
        match file.write_all(text.as_bytes()) {
            Ok(()) => Ok(None),
            Err(e) => warning(&slot.path, &e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(json: &Path) -> Request<'_> {
        Request {
            json: Some(json),
            ..Request::default()
        }
    }

    #[test]
    fn a_report_renamed_over_a_symlink_leaves_the_target_alone() {
        let d = tempfile::tempdir().unwrap();
        let plan = d.path().join("plan.yaml");
        std::fs::write(&plan, "plan").unwrap();
        let json = d.path().join("out/r.json");
        let g = [Guarded::read("the plan file", &plan, false)];
        let o = preflight(&req(&json), &g).unwrap();
        o.write(Kind::Json, "{}").unwrap();
        assert_eq!(std::fs::read_to_string(&json).unwrap(), "{}");
        std::fs::remove_file(&json).unwrap();
        std::os::unix::fs::symlink(&plan, &json).unwrap();
        let e = o.write(Kind::Json, "{}").unwrap_err().to_string();
        assert!(e.contains("became a symbolic link"), "{e}");
        assert_eq!(std::fs::read_to_string(&plan).unwrap(), "plan");
        std::fs::remove_file(&json).unwrap();
        std::fs::hard_link(&plan, &json).unwrap();
        let e = o.write(Kind::Json, "{}").unwrap_err().to_string();
        assert!(e.contains("another name of the plan file"), "{e}");
        assert_eq!(std::fs::read_to_string(&plan).unwrap(), "plan");
        let left: Vec<_> = std::fs::read_dir(d.path().join("out")).unwrap().collect();
        assert_eq!(left.len(), 1, "no temporary file is left behind");
    }

    #[test]
    fn a_report_folder_replaced_by_a_symlink_is_refused() {
        let d = tempfile::tempdir().unwrap();
        let json = d.path().join("out/r.json");
        let o = preflight(&req(&json), &[]).unwrap();
        std::fs::rename(d.path().join("out"), d.path().join("moved")).unwrap();
        std::fs::create_dir(d.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(d.path().join("elsewhere"), d.path().join("out")).unwrap();
        let e = o.write(Kind::Json, "{}").unwrap_err().to_string();
        assert!(e.contains("was moved or replaced"), "{e}");
        assert_eq!(
            std::fs::read_dir(d.path().join("elsewhere"))
                .unwrap()
                .count(),
            0
        );
        assert_eq!(
            std::fs::read_dir(d.path().join("moved")).unwrap().count(),
            0
        );
    }
}
