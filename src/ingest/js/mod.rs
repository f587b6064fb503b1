//! The JSON reporters of the JavaScript test runners whose JUnit hides retries: Playwright's
//! `--reporter=json`, mocha's `--reporter json`, and the Jest-shaped JSON that `jest --json`
//! and Vitest's `--reporter=json` write. Each records what a retry did, where their JUnit
//! does not, so each test's first attempt can be graded and the retries kept as ungraded
//! attempts, as the JUnit readers do for pytest-rerunfailures and nextest.
//!
//! Read from the real tools' output (scripts/gen-junit-fixtures.sh: @playwright/test 1.65,
//! mocha 11, Jest 30, Vitest 4, with a scripted test whose outcome is a function of an
//! invocation counter). What each hides is in its module's docs.

pub mod jest;
pub mod mocha;
pub mod playwright;

use super::{Attempt, ParseError, Trial, cut_text};

/// Why a report cannot be read.
#[derive(Debug)]
pub enum Error {
    /// Not the runner's JSON report.
    Parse(ParseError),
    /// A report that reads, but whose records are not every test's first attempt (a file
    /// that failed to load, a failed hook, an interrupted run).
    Refused(String),
}

/// What a report holds.
#[derive(Debug)]
pub struct Report {
    /// Trials, each test's in run order, attempt 1 first.
    pub trials: Vec<Trial>,
    /// Records of tests that did not run (skipped, pending, todo).
    pub skipped: u64,
    /// The test id of each such record.
    pub skipped_tests: Vec<String>,
    /// The start (and end) times the runner wrote for the run and its files: with the
    /// records, the run's identity, so that a copy of a report saved again with other bytes
    /// (keys sorted, reindented) is refused as the same run ([`super::check_distinct`]).
    pub stamps: Vec<String>,
    /// What the reader said about the file, for the terminal.
    pub notes: Vec<String>,
}

/// A time the runner wrote (a number of milliseconds or a date string), as a stamp of the
/// run's identity; `None` when absent.
fn stamp(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::Null => None,
        serde_json::Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

/// The one trial of `test` in a run's report: one run writes each test once, so a second
/// record of an id is another test whose titles joined alike (`how` says how the runner joins
/// them). Read as repeats, one's failure would be the other's trial: refused.
fn only_trial(
    seen: &mut std::collections::HashSet<String>,
    test: &str,
    how: &str,
) -> Result<(), Error> {
    if seen.insert(test.to_string()) {
        return Ok(());
    }
    Err(Error::Refused(format!(
        "two tests are both `{test}` ({how}): gate would grade them as one test and one's failure \
         would count as the other's trial. Rename one, then run the suite again"
    )))
}

/// Parse a whole JSON report into `T`, with serde_json's position.
fn parse<'a, T: serde::Deserialize<'a>>(text: &'a str, what: &str) -> Result<T, Error> {
    // Through the per-file record cap: each report's lists of tests are counted as parsed.
    super::capped::from_str(text).map_err(|e| {
        Error::Parse(ParseError {
            line: e.line() as u64,
            column: e.column() as u64,
            reason: super::capped::reason(&e, |e| format!("not {what}: {e}")),
        })
    })
}

/// The attempts of one test that ran `retries` more times after its first attempt and ended
/// `passed`: the runner says how many times it ran, and that every attempt before the last
/// failed (a retry happens only after a failure), not what each failure said.
fn retried(retries: u64, passed: bool, duration_s: f64, last_message: &str) -> Vec<Attempt> {
    let earlier = Attempt {
        passed: false,
        unavailable: false,
        duration_s: 0.0,
        message: "failed (the runner retried it; its report keeps only the last attempt's error)"
            .into(),
        detail: String::new(),
    };
    let mut attempts = vec![earlier; retries as usize];
    attempts.push(Attempt {
        passed,
        unavailable: false,
        duration_s,
        message: if passed {
            String::new()
        } else {
            cut_text(last_message)
        },
        detail: String::new(),
    });
    attempts
}

/// Paths as the runner wrote them (absolute for mocha, Jest and Vitest), each cut to what
/// follows the root of the git checkout that holds them, so that one suite's test ids are the
/// same on every machine, in every checkout (a matrix job's, a laptop's) and whichever of its
/// files a run holds (a shard, one file run alone). Only when the files are not in a checkout
/// here (a report read on another machine) are they cut to what follows the folder all of them
/// share, which names a file differently when a run holds only some of the folders.
fn relative_to_common_dir(paths: &[&str]) -> Vec<String> {
    if let Some(root) = checkout_root(paths) {
        return paths
            .iter()
            .map(|p| p.split('/').skip(root).collect::<Vec<_>>().join("/"))
            .collect();
    }
    let dirs: Vec<Vec<&str>> = paths
        .iter()
        .map(|p| {
            let mut parts: Vec<&str> = p.split('/').collect();
            parts.pop();
            parts
        })
        .collect();
    let common = dirs.first().map_or(0, |first| {
        (0..first.len())
            .take_while(|&i| dirs.iter().all(|d| d.get(i) == first.get(i)))
            .count()
    });
    paths
        .iter()
        .map(|p| p.split('/').skip(common).collect::<Vec<_>>().join("/"))
        .collect()
}

/// How many `/`-separated parts of every path name the git checkout (the folder with `.git`,
/// a directory or a worktree's file) that holds them all, when each is a file here.
fn checkout_root(paths: &[&str]) -> Option<usize> {
    let first = std::path::Path::new(paths.first()?);
    if !first.is_absolute() {
        return None;
    }
    let root = first
        .ancestors()
        .skip(1)
        .find(|d| d.join(".git").exists())?
        .to_str()?
        .trim_end_matches('/');
    let prefix = format!("{root}/");
    paths
        .iter()
        .all(|p| p.starts_with(&prefix) && std::path::Path::new(p).is_file())
        .then(|| root.split('/').count())
}

/// The first non-blank line of a runner's message, without its terminal colours, cut.
fn first_line(s: &str) -> String {
    let plain = strip_ansi(s);
    cut_text(
        plain
            .lines()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("")
            .trim(),
    )
}

/// A message without ANSI escape sequences: Playwright, Jest and Vitest colour the messages
/// they write into their JSON reports (`\x1b[2mexpect(\x1b[22m…`), which would otherwise
/// reach the ledger and every report as escaped noise.
fn strip_ansi(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\x1b' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            // CSI: parameters and intermediates, then one final byte in @–~.
            Some('[') => {
                chars.next();
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            // Any other escape: the escape and the one character it introduces.
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_cut_to_what_follows_their_common_folder() {
        assert_eq!(
            relative_to_common_dir(&[
                "/ci/w/repo/tests/a.test.js",
                "/ci/w/repo/tests/sub/b.test.js"
            ]),
            ["a.test.js", "sub/b.test.js"]
        );
        assert_eq!(
            relative_to_common_dir(&["/tmp/x/agent.test.mjs"]),
            ["agent.test.mjs"]
        );
        assert_eq!(relative_to_common_dir(&["a.js", "b.js"]), ["a.js", "b.js"]);
    }

    #[test]
    fn terminal_colours_are_stripped_from_messages() {
        assert_eq!(
            first_line("\n\x1b[2mexpect(\x1b[22m\x1b[31mreceived\x1b[39m).toBe\nstack"),
            "expect(received).toBe"
        );
        assert_eq!(strip_ansi("a\x1b"), "a");
        assert_eq!(strip_ansi("plain › text"), "plain › text");
    }

    #[test]
    fn a_retried_test_has_failed_attempts_before_its_last() {
        let a = retried(2, true, 0.5, "");
        assert_eq!(a.len(), 3);
        assert!(!a[0].passed && !a[1].passed && a[2].passed);
        let a = retried(0, false, 0.1, "boom\nstack");
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].message, "boom\nstack");
    }
}
