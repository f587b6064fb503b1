//! Text a task controls, made safe for where gate prints or stores it.
//!
//! The task under test is an adversary (docs/trust.md): its note, its declared fault, the
//! names of unknown keys in its result file, its output tails and anything derived from them
//! reach the ledger, the terminal, the GitHub Actions log and the Markdown step summary. Each
//! destination has its own hazard:
//!
//! - size: every stored string is clipped to a stated number of bytes ([`clip`]);
//! - the terminal and CI log: control characters (newline, carriage return, ESC) could forge
//!   lines or repaint the screen, so [`one_line`] escapes them; a line that begins with `::`
//!   (or the legacy `##[`) is executed by the Actions runner as a workflow command
//!   (`::add-mask::`, `::stop-commands::`), so [`log_line`] prefixes any such line;
//! - Markdown: `[x](https://…)` and `![](…)` would render as links and images, and HTML as
//!   markup, so [`markdown`] escapes the characters that make them.
//!
//! Only gate's own annotation lines (`report::annotations`) start with `::`.

use std::borrow::Cow;

/// Bytes of a result file's `note` kept in the ledger.
pub const MAX_NOTE_BYTES: usize = 4096;
/// Bytes of a result file's `fault` kept in the ledger.
pub const MAX_FAULT_BYTES: usize = 256;
/// Bytes of an attempt's `reason` kept in the ledger.
pub const MAX_REASON_BYTES: usize = 2048;

/// The marker appended where text was clipped.
const CLIPPED: &str = "…";

/// `s` cut to at most `max` bytes (on a character boundary), with `…` appended when cut.
pub fn clip(s: &str, max: usize) -> String {
    if s.len() <= max {
        return s.to_string();
    }
    let mut cut = max;
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    format!("{}{CLIPPED}", &s[..cut])
}

/// Control characters escaped so the text stays on one line and cannot move the cursor:
/// `\n`, `\r`, `\t` as themselves, others (ESC, BEL, DEL, C1) as `\u{…}`.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(char::is_control) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether a line would be taken by the Actions runner as a workflow command: it trims the
/// line and looks for `::` (and, for the legacy syntax, `##[`).
pub fn is_workflow_command(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("::") || t.starts_with("##[")
}

/// A complete line of gate's stdout or stderr that contains task text: escaped to one line,
/// and prefixed with `| ` if it would otherwise be a workflow command.
pub fn log_line(s: &str) -> String {
    let line = one_line(s);
    if is_workflow_command(&line) {
        format!("| {line}")
    } else {
        line.into_owned()
    }
}

/// Multi-line text (an output tail, an error chain) for gate's stdout or stderr: control
/// characters other than newline escaped, and every line that would be a workflow command
/// prefixed with `| `.
pub fn log_text(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, line) in s.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&log_line(line));
    }
    out
}

/// Text for a Markdown document (a table cell or a paragraph): one line, and every
/// character that could open a link, an image, emphasis, code, HTML or a table cell
/// backslash-escaped (GitHub Flavored Markdown treats any escaped ASCII punctuation as text).
/// `<` and `>` become entities, which GitHub also renders as text.
pub fn markdown(s: &str) -> String {
    let line = one_line(s);
    let mut out = String::with_capacity(line.len() + 8);
    for c in line.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '!' | '|' | '#' | '~' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    // A bare URL is autolinked by GitHub; break the scheme so it stays text.
    out.replace("://", ":&#47;&#47;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clip_cuts_on_a_char_boundary() {
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(clip("abcd", 3), "abc…");
        assert_eq!(clip("aé", 2), "a…");
    }

    #[test]
    fn one_line_escapes_control_characters() {
        assert_eq!(one_line("a\nb\r\x1b[2Jc"), "a\\nb\\r\\u{1b}[2Jc");
        assert!(matches!(one_line("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn task_text_cannot_start_a_workflow_command() {
        for evil in [
            "::add-mask::x",
            "  ::stop-commands::tok",
            "##[error]x",
            "ok\n::warning::x",
        ] {
            let out = log_text(evil);
            assert!(
                out.lines().all(|l| !is_workflow_command(l)),
                "{evil:?} -> {out:?}"
            );
            assert!(!is_workflow_command(&log_line(evil)));
        }
        assert_eq!(log_line("a :: b"), "a :: b");
    }

    #[test]
    fn markdown_does_not_render_task_links() {
        let m = markdown("see [x](https://evil.example) ![](https://evil.example/p.png) <img>");
        assert!(!m.contains("]("), "{m}");
        assert!(!m.contains("https://"), "{m}");
        assert!(!m.contains('<'), "{m}");
        assert_eq!(markdown("a|b\nc"), "a\\|b\\\\nc");
    }
}
