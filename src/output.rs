//! How much `gate run` and `gate report` print, where, and in colour or not: `--quiet`,
//! `--verbose`, `--color` with `NO_COLOR`, and a report written to stdout with `-`.
//!
//! The summary text itself comes from [`crate::report::terminal`], plain; this module only
//! filters it (quiet keeps the verdict lines) and paints the verdict words, so every renderer
//! and snapshot stays colour-free.

use std::path::Path;

use crate::cli::{ColorChoice, OutputArgs, ReportFiles};
use crate::error::Error;

/// The output conventions of one invocation, resolved.
#[derive(Debug, Clone, Copy, Default)]
pub struct Output {
    /// Verdict lines only; no per-trial progress.
    pub quiet: bool,
    /// Each task's resolved rule before it runs.
    pub verbose: bool,
    /// Paint the verdict words (ANSI colours).
    pub color: bool,
}

impl Output {
    /// Resolve the flags for a summary printed to a stream that is (or is not) a terminal.
    /// `NO_COLOR` (any non-empty value, <https://no-color.org>) turns `auto` off; `always`
    /// wins over it, as the user asked for colour explicitly.
    pub fn resolve(args: &OutputArgs, to_terminal: bool) -> Output {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match args.color {
            ColorChoice::Always => true,
            ColorChoice::Never => false,
            ColorChoice::Auto => to_terminal && !no_color,
        };
        Output {
            quiet: args.quiet,
            verbose: args.verbose,
            color,
        }
    }

    /// The terminal summary as this invocation prints it.
    pub fn summary(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len());
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().copied().enumerate() {
            // Task and gate verdict lines are the ones that do not start with blanks.
            let verdict_line = !line.is_empty() && !line.starts_with(' ');
            if self.quiet && !verdict_line && !harness_cause(&lines, i) {
                continue;
            }
            if self.color && verdict_line {
                out.push_str(&paint(line));
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }
}

/// Whether line `i` of a terminal summary is the last line of output of a harness error's
/// trial (`    | sh: ./agent: not found`), the one line that says what went wrong: `--quiet`
/// keeps it under the verdict line.
fn harness_cause(lines: &[&str], i: usize) -> bool {
    const EXCERPT: &str = "    | ";
    let last_of_excerpt =
        lines[i].starts_with(EXCERPT) && lines.get(i + 1).is_none_or(|n| !n.starts_with(EXCERPT));
    last_of_excerpt
        && lines[..i]
            .iter()
            .rev()
            .find(|l| !l.starts_with(EXCERPT) && !l.starts_with("  log "))
            .is_some_and(|l| l.starts_with("  harness "))
}

/// Colour the first verdict word of a verdict line: PASS green, FAIL and HARNESS ERROR red,
/// INCONCLUSIVE yellow.
fn paint(line: &str) -> String {
    const WORDS: [(&str, &str); 4] = [
        ("HARNESS ERROR", "31"),
        ("INCONCLUSIVE", "33"),
        ("PASS", "32"),
        ("FAIL", "31"),
    ];
    // The verdict follows the task id and two spaces (`id  PASS: …`, `gate  FAIL (exit 1)`).
    let Some(at) = line.find("  ") else {
        return line.to_string();
    };
    let (head, rest) = line.split_at(at + 2);
    for (word, code) in WORDS {
        if let Some(tail) = rest.strip_prefix(word) {
            return format!("{head}\x1b[1;{code}m{word}\x1b[0m{tail}");
        }
    }
    line.to_string()
}

/// True when one report file is `-` (stdout). More than one `-` is a usage error: two
/// documents on one stream cannot be told apart.
pub fn report_to_stdout(files: &ReportFiles) -> Result<bool, Error> {
    let dashes: Vec<&str> = [
        ("--json", &files.json),
        ("--junit", &files.junit),
        ("--summary", &files.summary),
    ]
    .into_iter()
    .filter(|(_, p)| p.as_deref().is_some_and(is_stdout))
    .map(|(flag, _)| flag)
    .collect();
    if dashes.len() > 1 {
        return Err(Error::Usage(format!(
            "only one report can go to stdout, but {} are {} `-`; write the others to files",
            dashes.join(" and "),
            if dashes.len() == 2 { "both" } else { "all" }
        )));
    }
    Ok(dashes.len() == 1)
}

/// Check the report paths of `gate run` before any trial runs, so that a typo there does
/// not cost a whole run: no directory, a folder that can be created, no device or FIFO, and
/// no two paths naming one file — a report over the ledger, the plan, the ledger's lock or
/// another report (`--json` naming the ledger would overwrite the evidence with a report of
/// it; a report over the lock, the pid that a second run reads).
pub fn preflight(files: &ReportFiles, ledger: &Path, plan: &Path) -> Result<(), Error> {
    report_to_stdout(files)?;
    let reports = report_files(files);
    for &(flag, path) in reports.iter().chain([("--ledger", ledger)].iter()) {
        if path.is_dir() {
            return Err(Error::Usage(format!(
                "`{flag} {}`: is a directory; give a file path",
                path.display()
            )));
        }
    }
    for &(flag, path) in &reports {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                let what = format!(
                    "`{flag} {}`: cannot create `{}`",
                    path.display(),
                    dir.display()
                );
                Error::input(what, e)
            })?;
        }
    }
    let step_summary = step_summary(files);
    let lock = crate::runner::session::LedgerLock::path_for(ledger);
    let mut written = reports.clone();
    if let Some(p) = &step_summary {
        written.push(("$GITHUB_STEP_SUMMARY", p));
    }
    for &(flag, path) in written.iter().chain([("--ledger", ledger)].iter()) {
        crate::input::check_output(path)
            .map_err(|e| Error::input(format!("`{flag} {}`", path.display()), e))?;
    }
    let mut paths = vec![("--ledger", ledger), ("the plan file", plan)];
    paths.extend(written);
    paths.push(("the ledger's lock file", &lock));
    if let Some((a, b)) = crate::input::first_clash(&paths) {
        return Err(Error::Usage(format!(
            "{a} and {b} name the same file; every report needs its own path, apart from the ledger and the plan"
        )));
    }
    Ok(())
}

/// The report files asked for (`--junit`, `--summary`, `--json`), with their flags; a
/// report to stdout (`-`) is no file and is left out.
pub fn report_files(files: &ReportFiles) -> Vec<(&'static str, &Path)> {
    [
        ("--junit", &files.junit),
        ("--summary", &files.summary),
        ("--json", &files.json),
    ]
    .into_iter()
    .filter_map(|(f, p)| p.as_deref().map(|p| (f, p)))
    .filter(|(_, p)| !is_stdout(p))
    .collect()
}

/// The file the Markdown summary is appended to as the CI's step summary:
/// `$GITHUB_STEP_SUMMARY`, unless `--no-step-summary`. It is written to whether or not
/// `--summary` is given, so every check of report paths against the ledgers includes it.
pub fn step_summary(files: &ReportFiles) -> Option<std::path::PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|v| !files.no_step_summary && !v.is_empty())
        .map(std::path::PathBuf::from)
}

/// Whether a report path means stdout.
pub fn is_stdout(path: &Path) -> bool {
    path.as_os_str() == "-"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_keeps_the_verdict_lines_and_colour_paints_only_the_verdict() {
        let text = "t  FAIL: 2 failures\n  plan       5 trials\n\ngate  FAIL (exit 1) · 1 task\n  ledger head x\n";
        let quiet = Output {
            quiet: true,
            ..Output::default()
        };
        assert_eq!(
            quiet.summary(text),
            "t  FAIL: 2 failures\ngate  FAIL (exit 1) · 1 task\n"
        );
        let color = Output {
            color: true,
            ..Output::default()
        };
        assert!(
            color
                .summary(text)
                .starts_with("t  \x1b[1;31mFAIL\x1b[0m: 2 failures\n  plan")
        );
        let harness = "t  HARNESS ERROR: trial #1 could not be run\n  harness    #001: run exited 127\n  log        x.log\n    | first\n    | sh: ./agent: not found\n\ngate  HARNESS ERROR\n";
        assert_eq!(
            quiet.summary(harness),
            "t  HARNESS ERROR: trial #1 could not be run\n    | sh: ./agent: not found\ngate  HARNESS ERROR\n"
        );
        // A failing trial's excerpt is not a harness error's cause: quiet drops it.
        let fail = "t  FAIL: 1 failure\n  first fail #001: exit 1\n    | boom\n";
        assert_eq!(quiet.summary(fail), "t  FAIL: 1 failure\n");
        assert_eq!(
            paint("id-with-PASS  PASS: ok"),
            "id-with-PASS  \x1b[1;32mPASS\x1b[0m: ok"
        );
    }
}
