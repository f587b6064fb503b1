//! How much `gate run` and `gate report` print, where, and in colour or not: `--quiet`,
//! `--verbose`, `--color` with `NO_COLOR`, and a report written to stdout with `-`.
//!
//! The summary text itself comes from [`crate::report::terminal`], plain; this module only
//! filters it (quiet keeps the verdict lines) and paints the verdict words, so every renderer
//! and snapshot stays colour-free.

use std::path::PathBuf;

/// `--color`: when to paint the verdict words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ColorWhen {
    /// When the summary goes to a terminal and `NO_COLOR` is not set.
    #[default]
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

/// The output flags as given (`--quiet`, `--verbose`, `--color`), before the stream is known.
#[derive(Debug, Clone, Copy, Default)]
pub struct OutputOptions {
    /// `--quiet`.
    pub quiet: bool,
    /// `--verbose`.
    pub verbose: bool,
    /// `--color`.
    pub color: ColorWhen,
}

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
    pub fn resolve(args: &OutputOptions, to_terminal: bool) -> Output {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        let color = match args.color {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => to_terminal && !no_color,
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

/// The file the Markdown summary is appended to as the CI's step summary:
/// `$GITHUB_STEP_SUMMARY`, unless `--no-step-summary`. It is written to whether or not
/// `--summary` is given, so the preflight checks it against the command's own files too.
pub fn step_summary(no_step_summary: bool) -> Option<PathBuf> {
    std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|v| !no_step_summary && !v.is_empty())
        .map(PathBuf::from)
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
