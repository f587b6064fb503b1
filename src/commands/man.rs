//! `gate man [COMMAND] [--out-dir DIR]`: the manual pages, generated from the clap definition
//! in [`crate::cli`].
//!
//! `gate(1)` lists its subcommands as `gate-run(1)`, `gate-plan(1)`, …, so each of those
//! pages exists: `gate man run` prints gate-run(1), and `--out-dir` writes every page. A
//! command's help text ends in blocks headed `Example:` and `Exit codes:`; clap_mangen would
//! print them together under a heading `EXTRA`, so here they become the sections a manual
//! page has for them, EXAMPLES and EXIT STATUS (every page has the latter: a command without
//! a table of its own gets gate's).

use std::io::Write;
use std::path::Path;

use clap::CommandFactory;

use crate::cli::{Cli, ManArgs};
use crate::error::{Error, usage};
use crate::exit;

/// Execute `gate man`.
pub fn execute(args: &ManArgs) -> Result<u8, Error> {
    let root = commands();
    if let Some(dir) = &args.out_dir {
        // Like `mkdir -p`: a folder for the pages is what `--out-dir` names.
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::input(format!("cannot create `{}`", dir.display()), e))?;
        let mut written = Vec::new();
        for cmd in std::iter::once(&root).chain(root.get_subcommands().filter(|c| !c.is_hide_set()))
        {
            let path = dir.join(format!("{}.1", page_name(cmd)));
            // A directory named on the command line that cannot be written: exit 2.
            std::fs::write(&path, page(cmd)?)
                .map_err(|e| Error::input(format!("cannot write `{}`", path.display()), e))?;
            written.push(path);
        }
        println!(
            "wrote {} manual pages to {}",
            written.len(),
            Path::new(dir).display()
        );
        return Ok(exit::SUCCESS);
    }
    let cmd = match &args.command {
        None => &root,
        Some(name) => root.find_subcommand(name).ok_or_else(|| {
            let names: Vec<&str> = root
                .get_subcommands()
                .filter(|c| !c.is_hide_set())
                .map(|c| c.get_name())
                .collect();
            usage!(
                "no manual page for `{name}`: the pages are gate(1) and gate-COMMAND(1) for \
                 COMMAND one of {}",
                names.join(", ")
            )
        })?,
    };
    std::io::stdout()
        .write_all(page(cmd)?.as_bytes())
        .map_err(|e| Error::output("cannot write to stdout", e))?;
    Ok(exit::SUCCESS)
}

/// The command tree as the pages describe it: built (so subcommands are named `gate-run`),
/// without the `help` subcommand, which has no page.
fn commands() -> clap::Command {
    let mut cmd = Cli::command().disable_help_subcommand(true);
    cmd.build();
    cmd
}

/// `gate` or `gate-run`: the page's name (its file is NAME.1).
fn page_name(cmd: &clap::Command) -> String {
    cmd.get_display_name()
        .unwrap_or_else(|| cmd.get_name())
        .to_string()
}

/// One manual page, in roff.
fn page(cmd: &clap::Command) -> Result<String, Error> {
    let after = cmd
        .get_after_long_help()
        .or_else(|| cmd.get_after_help())
        .map(|s| s.to_string())
        .unwrap_or_default();
    let blocks = Blocks::of(&after);
    // clap_mangen renders every section but the after-help one: render without it, then add
    // ours before VERSION.
    // The footer (the `.TH` source) is the package and its version on every page: a
    // subcommand carries no version of its own, and would print `"run "`.
    let man = clap_mangen::Man::new(cmd.clone().after_help("").after_long_help(""))
        .source(format!("gate {}", env!("CARGO_PKG_VERSION")));
    let mut out = Vec::new();
    let render = |out: &mut Vec<u8>| -> std::io::Result<()> {
        man.render_title(out)?;
        man.render_name_section(out)?;
        man.render_synopsis_section(out)?;
        man.render_description_section(out)?;
        if cmd.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(out)?;
        }
        if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
            man.render_subcommands_section(out)?;
        }
        Ok(())
    };
    render(&mut out).map_err(|e| Error::output("cannot render the manual page", e))?;
    let mut text =
        String::from_utf8(out).map_err(|e| Error::output("the manual page is not UTF-8", e))?;
    section(&mut text, "EXAMPLES", &blocks.examples);
    section(&mut text, "NOTES", &blocks.notes);
    let exit_codes = if blocks.exit_codes.is_empty() {
        exit::HELP_TABLE
            .lines()
            .skip(1)
            .map(str::to_string)
            .collect()
    } else {
        blocks.exit_codes
    };
    section(&mut text, "EXIT STATUS", &exit_codes);
    // Only gate(1) carries a version (clap_mangen would panic on a page without one).
    if cmd.get_version().is_some() {
        let mut version = Vec::new();
        man.render_version_section(&mut version)
            .map_err(|e| Error::output("cannot render the manual page", e))?;
        text.push_str(&String::from_utf8_lossy(&version));
    }
    Ok(text)
}

/// A command's after-help text, split into the sections of a manual page.
#[derive(Debug, Default, PartialEq)]
struct Blocks {
    examples: Vec<String>,
    exit_codes: Vec<String>,
    notes: Vec<String>,
}

impl Blocks {
    /// Blocks are separated by blank lines; one headed `Example:` or `Exit codes:` goes to
    /// that section (the heading dropped), the rest to NOTES.
    fn of(after: &str) -> Blocks {
        let mut b = Blocks::default();
        for block in after.split("\n\n").filter(|s| !s.trim().is_empty()) {
            let mut lines = block.lines();
            let head = lines.next().unwrap_or_default().trim();
            let body = || {
                lines
                    .clone()
                    .map(|l| l.trim().to_string())
                    .collect::<Vec<_>>()
            };
            match head {
                "Example:" | "Examples:" => b.examples.extend(body()),
                "Exit codes:" => b.exit_codes.extend(body()),
                _ => b.notes.extend(block.lines().map(|l| l.trim().to_string())),
            }
        }
        b
    }
}

/// Append a `.SH` section of plain lines (each its own paragraph line), escaped for roff.
fn section(text: &mut String, heading: &str, lines: &[String]) {
    if lines.is_empty() {
        return;
    }
    text.push_str(&format!(".SH \"{heading}\"\n"));
    for line in lines {
        text.push_str(".br\n");
        text.push_str(&roff_escape(line));
        text.push('\n');
    }
}

/// A line of text as roff reads it: backslashes and hyphens escaped, and a leading `.` or `'`
/// (a control line) protected.
fn roff_escape(line: &str) -> String {
    let escaped = line.replace('\\', "\\e").replace('-', "\\-");
    if escaped.starts_with('.') || escaped.starts_with('\'') {
        format!("\\&{escaped}")
    } else {
        escaped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn after_help_splits_into_examples_exit_status_and_notes() {
        let b = Blocks::of(
            "Example:\n  gate run plans/demo.yaml\n\nEach file is one run.\n\nExit codes:\n  0    PASS\n  1    FAIL",
        );
        assert_eq!(b.examples, vec!["gate run plans/demo.yaml"]);
        assert_eq!(b.exit_codes, vec!["0    PASS", "1    FAIL"]);
        assert_eq!(b.notes, vec!["Each file is one run."]);
    }

    #[test]
    fn every_page_the_main_page_cites_exists_with_an_exit_status_section() {
        let root = commands();
        let main = page(&root).unwrap();
        assert!(!main.contains("EXTRA"));
        assert!(main.contains(".SH \"EXIT STATUS\""));
        for sub in root.get_subcommands().filter(|c| !c.is_hide_set()) {
            let name = page_name(sub);
            // clap_mangen cites each subcommand as NAME(1), with roff-escaped hyphens.
            assert!(
                main.contains(&format!("{}(1)", name.replace('-', "\\-"))),
                "{name}"
            );
            let p = page(sub).unwrap();
            assert!(p.contains(&format!(".TH {name} 1")), "{name}");
            assert!(p.contains(".SH \"EXIT STATUS\""), "{name}");
            assert!(!p.contains("EXTRA"), "{name}");
        }
    }

    #[test]
    fn roff_control_characters_are_escaped() {
        assert_eq!(roff_escape(".hidden"), "\\&.hidden");
        assert_eq!(roff_escape("a-b \\ c"), "a\\-b \\e c");
    }
}
