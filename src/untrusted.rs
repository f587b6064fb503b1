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
//! - invisible characters: bidi controls (U+202A–U+202E, U+2066–U+2069, U+200E/U+200F,
//!   U+061C) reorder what a reader sees (an id that reads `PASS` can hold `SSAP`), and line and
//!   paragraph separators (U+2028/U+2029), zero-width characters and the BOM hide text or
//!   break lines in some viewers; [`one_line`] and [`markdown`] show each as `\u{…}`;
//! - Markdown: `[x](https://…)` and `![](…)` would render as links and images, and HTML as
//!   markup, so [`markdown`] (the one Markdown escape, used by every Markdown renderer)
//!   escapes the characters that make them.
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

/// Whether `c` is a character that changes how text around it is shown without being seen
/// itself: bidi embedding, override and isolate controls and marks, line and paragraph
/// separators, zero-width characters, the word joiner and invisible operators, the BOM.
pub fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// Whether a name holds nothing a reader could see: empty, or only characters that show
/// nothing ([`shows_nothing`]).
pub fn is_blank(s: &str) -> bool {
    s.chars().all(shows_nothing)
}

/// Whether a test id shows nothing, or has a `::`-separated part that shows nothing (`⠀::⠀`,
/// a class name and a test name both of blanks, reads as `::`): such an id names no test a
/// reader can tell from another, so it is refused as an empty one is.
pub fn is_blank_id(id: &str) -> bool {
    id.split("::").any(is_blank)
}

/// The code points that draw no glyph a reader can tell apart, besides whitespace, control
/// characters and [`is_invisible`]: one table, by class (issue 29 review, B11: ids of only
/// Egyptian hieroglyph format controls, interlinear annotation marks or private-use code
/// points were accepted). Ranges are inclusive.
pub const SHOWS_NOTHING: &[(char, char, &str)] = &[
    // General_Category=Cf (format), every one (Unicode 16, UnicodeData.txt). Some of the
    // prepended concatenation marks (U+0600…) draw a sign over the digits that follow; alone,
    // they name nothing.
    ('\u{00ad}', '\u{00ad}', "format: soft hyphen"),
    ('\u{0600}', '\u{0605}', "format: Arabic number signs"),
    ('\u{061c}', '\u{061c}', "format: Arabic letter mark"),
    ('\u{06dd}', '\u{06dd}', "format: Arabic end of ayah"),
    ('\u{070f}', '\u{070f}', "format: Syriac abbreviation mark"),
    (
        '\u{0890}',
        '\u{0891}',
        "format: Arabic pound and piastre marks above",
    ),
    (
        '\u{08e2}',
        '\u{08e2}',
        "format: Arabic disputed end of ayah",
    ),
    ('\u{180e}', '\u{180e}', "format: Mongolian vowel separator"),
    (
        '\u{200b}',
        '\u{200f}',
        "format: zero-width space, joiners, direction marks",
    ),
    (
        '\u{202a}',
        '\u{202e}',
        "format: bidi embeddings and overrides",
    ),
    (
        '\u{2060}',
        '\u{2064}',
        "format: word joiner, invisible operators",
    ),
    (
        '\u{2066}',
        '\u{206f}',
        "format: bidi isolates, deprecated format characters",
    ),
    (
        '\u{feff}',
        '\u{feff}',
        "format: zero-width no-break space (BOM)",
    ),
    (
        '\u{fff9}',
        '\u{fffb}',
        "format: interlinear annotation anchor, separator, terminator",
    ),
    ('\u{110bd}', '\u{110bd}', "format: Kaithi number sign"),
    ('\u{110cd}', '\u{110cd}', "format: Kaithi number sign above"),
    (
        '\u{13430}',
        '\u{1343f}',
        "format: Egyptian hieroglyph format controls",
    ),
    (
        '\u{1bca0}',
        '\u{1bca3}',
        "format: shorthand format controls",
    ),
    (
        '\u{1d173}',
        '\u{1d17a}',
        "format: musical symbol beams and phrases",
    ),
    ('\u{e0001}', '\u{e0001}', "format: language tag"),
    ('\u{e0020}', '\u{e007f}', "format: tag characters"),
    // Default_Ignorable_Code_Point that are not Cf (Unicode 16, DerivedCoreProperties.txt).
    (
        '\u{034f}',
        '\u{034f}',
        "ignorable: combining grapheme joiner",
    ),
    (
        '\u{115f}',
        '\u{1160}',
        "ignorable: Hangul choseong and jungseong fillers",
    ),
    ('\u{17b4}', '\u{17b5}', "ignorable: Khmer inherent vowels"),
    (
        '\u{180b}',
        '\u{180f}',
        "ignorable: Mongolian free variation selectors",
    ),
    ('\u{2065}', '\u{2065}', "ignorable: reserved"),
    ('\u{3164}', '\u{3164}', "ignorable: Hangul filler"),
    ('\u{fe00}', '\u{fe0f}', "ignorable: variation selectors"),
    ('\u{ffa0}', '\u{ffa0}', "ignorable: halfwidth Hangul filler"),
    ('\u{fff0}', '\u{fff8}', "ignorable: reserved"),
    (
        '\u{e0000}',
        '\u{e0fff}',
        "ignorable: tags and variation selectors supplement",
    ),
    // Private use (Co): no agreed glyph. A font draws nothing, a box or its own picture, so
    // two such ids cannot be told apart by a reader: refused like blanks, as there is no
    // test runner that needs a name made only of them.
    ('\u{e000}', '\u{f8ff}', "private use"),
    ('\u{f0000}', '\u{ffffd}', "private use: plane 15"),
    ('\u{100000}', '\u{10fffd}', "private use: plane 16"),
    // Noncharacters: never text.
    ('\u{fdd0}', '\u{fdef}', "noncharacters"),
    // Blank glyphs that are not whitespace.
    ('\u{2800}', '\u{2800}', "blank: Braille pattern blank"),
    ('\u{3000}', '\u{3000}', "blank: ideographic space"),
    (
        '\u{1d159}',
        '\u{1d159}',
        "blank: musical symbol null notehead",
    ),
    // Marks that draw nothing without a letter to join (review 80, 17/c: an id of only one
    // of them was accepted and read as empty).
    ('\u{2d7f}', '\u{2d7f}', "blank: Tifinagh consonant joiner"),
    (
        '\u{16fe4}',
        '\u{16fe4}',
        "blank: Khitan small script filler",
    ),
];

/// Whether `c` draws no glyph a reader can tell apart: whitespace, control characters, the
/// [invisible](is_invisible) ones, and every range of [`SHOWS_NOTHING`] (format characters,
/// default-ignorable code points, private use, noncharacters, blank glyphs that are not
/// whitespace), and the noncharacters U+nFFFE and U+nFFFF of every plane. An id made only of
/// these reads as empty, so it is refused as an empty one is.
pub fn shows_nothing(c: char) -> bool {
    c.is_whitespace()
        || c.is_control()
        || is_invisible(c)
        || (c as u32 & 0xfffe) == 0xfffe
        || SHOWS_NOTHING
            .iter()
            .any(|&(lo, hi, _)| (lo..=hi).contains(&c))
}

/// Control and invisible characters escaped so the text stays on one line, cannot move the
/// cursor and reads as it is stored: `\n`, `\r`, `\t` as themselves, others (ESC, BEL, DEL,
/// C1, [`is_invisible`]) as `\u{…}`.
pub fn one_line(s: &str) -> Cow<'_, str> {
    if !s.chars().any(|c| c.is_control() || is_invisible(c)) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || is_invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
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

/// Text from a task or a ledger made inert in Markdown (table cells, headings, quotes): `|`,
/// `[` and `]` backslash-escaped (no table cell ends, no link or image opens), `&`, `<`, `>`
/// and backticks as HTML entities (no raw HTML, no code span can open), `://` broken with an
/// entity (no URL is autolinked), and control and [invisible](is_invisible) characters shown
/// as [`one_line`] shows them (`\n`, `\t`, `\u{1}`): folded to spaces, a note that spells a
/// secret's space with a control character was the secret in the rendered summary, which
/// `gate report` redacts against gate's environment only (review 51, 02).
pub fn markdown(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '|' => out.push_str("\\|"),
            '[' => out.push_str("\\["),
            ']' => out.push_str("\\]"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '`' => out.push_str("&#96;"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() || is_invisible(c) => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32));
            }
            c => out.push(c),
        }
    }
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
        // Every bracket is escaped, so no link or image opens.
        let unescaped = m
            .char_indices()
            .filter(|&(i, c)| (c == '[' || c == ']') && !m[..i].ends_with('\\'))
            .count();
        assert_eq!(unescaped, 0, "{m}");
        assert!(!m.contains("https://"), "{m}");
        assert!(!m.contains('<'), "{m}");
        assert_eq!(markdown("a|b\nc"), "a\\|b\\nc");
        // A control character in place of a secret's blank is shown, not folded to a blank
        // that spells the secret (review 51, 02).
        assert_eq!(markdown("s3cr3t\u{1}va1ue"), "s3cr3t\\u{1}va1ue");
    }

    #[test]
    fn bidi_controls_and_separators_are_shown_not_applied() {
        let evil = "ok\u{202e}SSAP\u{2066}x\u{2069}\u{2028}y\u{200b}";
        for shown in [one_line(evil).into_owned(), markdown(evil), log_line(evil)] {
            assert!(!shown.chars().any(is_invisible), "{shown:?}");
            assert!(
                shown.contains("\\u{202e}") && shown.contains("\\u{2028}"),
                "{shown:?}"
            );
        }
        assert!(is_blank("") && is_blank(" \u{200b}\u{202e}") && !is_blank("a"));
    }

    #[test]
    fn ids_made_only_of_invisible_or_blank_code_points_are_blank() {
        // Break 17 of issue 29: each of these alone was accepted as a test id.
        for c in [
            '\u{2800}',
            '\u{3164}',
            '\u{ffa0}',
            '\u{115f}',
            '\u{180e}',
            '\u{00ad}',
            '\u{034f}',
            '\u{1160}',
            '\u{fe0f}',
            '\u{e0041}',
            '\u{3000}',
            '\u{1}',
        ] {
            assert!(is_blank(&c.to_string()), "U+{:04X}", c as u32);
            assert!(is_blank(&format!("{c}{c} {c}")), "U+{:04X}", c as u32);
        }
        // Joined into a test id (class and name), they still name nothing.
        assert!(is_blank_id("\u{2800}::\u{2800}\u{2800}") && is_blank_id("agent::\u{3164}"));
        assert!(is_blank_id("\u{16fe4}") && is_blank_id("\u{2d7f}\u{2d7f}"));
        assert!(!is_blank_id("agent::refund") && !is_blank_id("test_x[a:b]"));
        // A visible character among them is a name.
        assert!(!is_blank("\u{2800}a\u{3164}"));
        assert!(!is_blank("é") && !is_blank("テスト"));
    }
}
