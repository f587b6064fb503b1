//! The documentation is tested like code: README.md and docs/*.md.
//!
//! - Every ```` ```console ```` block is runnable unless the line before its fence is a
//!   `<!-- docs: not run: REASON -->` comment. Each `$ gate …` line (a trailing `\` joins the
//!   next line; other `$` lines, such as a benchmark script, are shown, not run) runs with
//!   `sh -c` in a scratch directory that holds a copy of `plans/` and
//!   `tests/fixtures/`, with the `gate` under test first on `PATH`. The commands of one file
//!   run in order in one directory, so a `gate report` can read the ledger an earlier
//!   `gate run` wrote. A `(exit N)` line in a command's output is its documented exit code;
//!   without one the command must exit 0. A fenced block after `<!-- docs: file NAME -->`
//!   (a plan shown in the text) is written to NAME in that directory at that point, and
//!   after `<!-- docs: cwd DIR -->` the file's later commands run in DIR of it (e.g.
//!   `tests/fixtures/junit`, so a doc can name the fixtures as a user names their files).
//! - `GATE_DOCS_BLESS=1` rewrites each runnable block's output with what the commands print
//!   now (`scripts/docs-samples.sh` does this), except in blocks that hold a `…` line: those
//!   are excerpts, kept as written and only checked for their exit codes. Shown is stdout,
//!   then stderr — except the per-trial progress that `gate run` and `gate ingest` write to
//!   stderr, which is left out unless the command published no verdict.
//! - README.md stays a front door (at most 300 lines); every relative link in README.md and
//!   docs/*.md names a file that exists; every "invariant N" cited in `src/` is one of the
//!   numbered invariants of docs/ARCHITECTURE.md; every file, path, type, function or field
//!   docs/ARCHITECTURE.md names in backticks exists in `src/` or `tests/`; and
//!   `scripts/import-cycles.py` finds no import cycle, as it says.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root (where Cargo.toml is).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// README.md and every docs/*.md, sorted, as paths relative to the root.
fn doc_files() -> Vec<PathBuf> {
    let mut files = vec![PathBuf::from("README.md")];
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .map(|p| p.strip_prefix(root()).expect("under root").to_path_buf())
        .collect();
    docs.sort();
    files.extend(docs);
    files
}

/// One `$ COMMAND` of a runnable block and where its output lines are in the file.
#[derive(Debug)]
struct DocCommand {
    /// 1-based line of the `$` line, for messages.
    line: usize,
    command: String,
    expected_exit: i32,
    /// Line indices (0-based, end exclusive) of the output shown under the command.
    output: std::ops::Range<usize>,
}

/// A runnable ```` ```console ```` block.
#[derive(Debug)]
struct Block {
    commands: Vec<DocCommand>,
    /// Holds a `…` line: an excerpt, never rewritten.
    excerpt: bool,
    /// The fence's indentation (a block inside a list item), stripped from every line.
    indent: String,
}

/// What a doc file asks the test to do, in file order.
#[derive(Debug)]
enum Step {
    /// A fenced block after `<!-- docs: file NAME -->`: write its text to NAME first.
    File { name: String, text: String },
    /// A runnable ```` ```console ```` block.
    Run(Block),
    /// `<!-- docs: cwd DIR -->`: later commands (and files) of this doc are relative to DIR
    /// of the scratch directory.
    Cwd(String),
}

/// The steps of a Markdown text: files to write and blocks to run.
fn steps(text: &str) -> Vec<Step> {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let fence = lines[i].trim_start();
        if let Some(dir) = fence
            .strip_prefix("<!-- docs: cwd ")
            .and_then(|r| r.strip_suffix("-->"))
        {
            steps.push(Step::Cwd(dir.trim().to_string()));
        }
        if !fence.starts_with("```") {
            i += 1;
            continue;
        }
        let info = fence.trim_start_matches('`').trim();
        let start = i + 1;
        let mut end = start;
        while end < lines.len() && !lines[end].trim_start().starts_with("```") {
            end += 1;
        }
        let marker = lines[..i]
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty())
            .map(|l| l.trim())
            .unwrap_or("");
        if let Some(name) = marker
            .strip_prefix("<!-- docs: file ")
            .and_then(|r| r.strip_suffix("-->"))
        {
            let mut text = lines[start..end].join("\n");
            text.push('\n');
            steps.push(Step::File {
                name: name.trim().to_string(),
                text,
            });
        } else if info == "console" && !marker.starts_with("<!-- docs: not run") {
            let indent = &lines[i][..lines[i].len() - fence.len()];
            steps.push(Step::Run(parse_block(&lines, start, end, indent)));
        }
        i = end + 1;
    }
    steps
}

/// The runnable blocks of a Markdown text.
fn runnable_blocks(text: &str) -> Vec<Block> {
    steps(text)
        .into_iter()
        .filter_map(|s| match s {
            Step::Run(b) => Some(b),
            Step::File { .. } | Step::Cwd(_) => None,
        })
        .collect()
}

fn parse_block(all: &[&str], start: usize, end: usize, indent: &str) -> Block {
    // Indices stay those of the file; each line loses the fence's indentation.
    let lines: Vec<&str> = all
        .iter()
        .map(|l| l.strip_prefix(indent).unwrap_or(l))
        .collect();
    let mut commands: Vec<DocCommand> = Vec::new();
    let mut j = start;
    while j < end {
        let Some(first) = lines[j].strip_prefix("$ ") else {
            j += 1;
            continue;
        };
        let line = j + 1;
        let mut command = first.to_string();
        while command.ends_with('\\') && j + 1 < end {
            command.pop();
            j += 1;
            command.push_str(lines[j]);
        }
        let out_start = j + 1;
        let mut out_end = out_start;
        while out_end < end && !lines[out_end].starts_with("$ ") {
            out_end += 1;
        }
        let expected_exit = lines[out_start..out_end]
            .iter()
            .find_map(|l| {
                l.strip_prefix("(exit ")
                    .and_then(|r| r.strip_suffix(')'))
                    .and_then(|n| n.parse().ok())
            })
            .unwrap_or(0);
        commands.push(DocCommand {
            line,
            command,
            expected_exit,
            output: out_start..out_end,
        });
        j = out_end;
    }
    let excerpt = lines[start..end].iter().any(|l| l.trim() == "…");
    Block {
        commands,
        excerpt,
        indent: indent.to_string(),
    }
}

/// A scratch directory laid out like a checkout: `plans/` and `tests/fixtures/`.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    copy_tree(&root().join("plans"), &dir.path().join("plans"));
    copy_tree(
        &root().join("tests/fixtures"),
        &dir.path().join("tests/fixtures"),
    );
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("dir entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
            // Keep the executable bit of the demo's scripts.
            let mode = std::fs::metadata(entry.path())
                .expect("metadata")
                .permissions();
            std::fs::set_permissions(&target, mode).expect("chmod");
        }
    }
}

/// Run one documented command; returns its exit code and the output a reader is shown.
fn run(dir: &Path, command: &str) -> (i32, String) {
    let bin = assert_cmd::cargo::cargo_bin("gate");
    let bin_dir = bin.parent().expect("binary has a directory");
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("GITHUB_ACTIONS")
        .env_remove("GITHUB_STEP_SUMMARY")
        .env_remove("NO_COLOR")
        .output()
        .expect("sh runs");
    let code = out.status.code().unwrap_or(-1);
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let subcommand = command.split_whitespace().nth(1).unwrap_or("");
    let progress = command.starts_with("gate ") && matches!(subcommand, "run" | "ingest");
    let mut shown = stdout;
    if !(progress && matches!(code, 0 | 1 | 3)) {
        shown.push_str(&stderr);
    }
    (code, shown)
}

/// Every runnable block of every doc file runs with its documented exit code; with
/// `GATE_DOCS_BLESS=1` the outputs of non-excerpt blocks are rewritten from the real run.
#[test]
fn documented_commands_run_with_their_documented_exit_codes() {
    let bless = std::env::var_os("GATE_DOCS_BLESS").is_some_and(|v| v == "1");
    let mut failures = Vec::new();
    let mut gate_commands = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(root().join(&file)).expect("read doc");
        let steps = steps(&text);
        if steps.is_empty() {
            continue;
        }
        let scratch = scratch();
        let mut dir = scratch.path().to_path_buf();
        let lines: Vec<&str> = text.lines().collect();
        // Replacements of output ranges, in file order: (range, new lines).
        let mut rewrites: Vec<(std::ops::Range<usize>, Vec<String>)> = Vec::new();
        for step in &steps {
            let block = match step {
                Step::Cwd(rel) => {
                    dir = scratch.path().join(rel);
                    continue;
                }
                Step::File { name, text } => {
                    let path = dir.join(name);
                    if let Some(parent) = path.parent() {
                        std::fs::create_dir_all(parent).expect("mkdir");
                    }
                    std::fs::write(path, text).expect("write documented file");
                    continue;
                }
                Step::Run(block) => block,
            };
            for cmd in &block.commands {
                // Only gate's own commands run: a `$ scripts/bench-run.sh` in a console block
                // shows a benchmark's output, which a test cannot reproduce.
                if !cmd.command.starts_with("gate ") {
                    continue;
                }
                gate_commands += 1;
                let (code, shown) = run(&dir, &cmd.command);
                if code != cmd.expected_exit {
                    failures.push(format!(
                        "{}:{}: `{}` exited {code}, the doc says {}\n{shown}",
                        file.display(),
                        cmd.line,
                        cmd.command,
                        cmd.expected_exit
                    ));
                }
                if bless && !block.excerpt {
                    let mut new: Vec<String> = shown.lines().map(str::to_string).collect();
                    if code != 0 {
                        new.push(format!("(exit {code})"));
                    }
                    let new = new
                        .into_iter()
                        .map(|l| {
                            if l.is_empty() {
                                l
                            } else {
                                format!("{}{l}", block.indent)
                            }
                        })
                        .collect();
                    rewrites.push((cmd.output.clone(), new));
                }
            }
        }
        if bless && !rewrites.is_empty() {
            let mut out: Vec<String> = Vec::new();
            let mut at = 0;
            for (range, new) in rewrites {
                out.extend(lines[at..range.start].iter().map(|l| l.to_string()));
                out.extend(new);
                at = range.end;
            }
            out.extend(lines[at..].iter().map(|l| l.to_string()));
            let mut joined = out.join("\n");
            joined.push('\n');
            std::fs::write(root().join(&file), joined).expect("rewrite doc");
        }
    }
    assert!(
        failures.is_empty(),
        "documented commands that do not do what the docs say:\n\n{}",
        failures.join("\n\n")
    );
    // The README and the reference show at least one command of each kind; a parser that
    // found nothing would make this test pass without testing anything.
    assert!(
        gate_commands >= 20,
        "only {gate_commands} `$ gate` commands found in runnable blocks"
    );
}

/// The README is a front door, not the reference: the reference lives in docs/.
#[test]
fn readme_has_at_most_300_lines() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let n = text.lines().count();
    assert!(
        n <= 300,
        "README.md has {n} lines; move reference text to docs/"
    );
}

/// The targets of the Markdown links `[text](target)` in a text.
fn link_targets(text: &str) -> Vec<(usize, String)> {
    let mut targets = Vec::new();
    let mut in_fence = false;
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(close) = after.find(')') else { break };
            targets.push((i + 1, after[..close].to_string()));
            rest = &after[close..];
        }
    }
    targets
}

#[test]
fn every_relative_link_in_the_docs_names_an_existing_file() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(root().join(&file)).expect("read doc");
        let base = root().join(&file);
        let base = base.parent().expect("file has a directory");
        for (line, target) in link_targets(&text) {
            if target.contains("://") || target.starts_with('#') || target.starts_with("mailto:") {
                continue;
            }
            let path = target.split('#').next().unwrap_or("");
            checked += 1;
            if !base.join(path).exists() {
                broken.push(format!("{}:{line}: {target}", file.display()));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
    assert!(checked >= 10, "only {checked} relative links found");
}

/// The numbers of the `N. **...**` items under `## Invariants` in docs/ARCHITECTURE.md.
fn architecture_invariants() -> Vec<u32> {
    let text = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE");
    let section = text
        .split("\n## Invariants")
        .nth(1)
        .expect("an Invariants section")
        .split("\n## ")
        .next()
        .unwrap_or("");
    section
        .lines()
        .filter_map(|l| {
            let (n, rest) = l.split_once(". **")?;
            let _ = rest;
            n.trim().parse().ok()
        })
        .collect()
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read dir") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Code comments cite "invariant N"; each N must be defined in docs/ARCHITECTURE.md.
#[test]
fn every_invariant_cited_in_the_code_is_defined_in_architecture_md() {
    let defined = architecture_invariants();
    assert_eq!(
        defined,
        (1..=defined.len() as u32).collect::<Vec<_>>(),
        "the invariants are numbered 1..N in order"
    );
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    let mut cited = 0;
    let mut undefined = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read source");
        for (i, line) in text.lines().enumerate() {
            let mut rest = line;
            while let Some(at) = rest.find("invariant ") {
                rest = &rest[at + "invariant ".len()..];
                let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
                if let Ok(n) = digits.parse::<u32>() {
                    cited += 1;
                    if !defined.contains(&n) {
                        undefined.push(format!("{}:{}: invariant {n}", file.display(), i + 1));
                    }
                }
            }
        }
    }
    assert!(
        undefined.is_empty(),
        "invariants cited but not defined in docs/ARCHITECTURE.md:\n{}",
        undefined.join("\n")
    );
    assert!(cited >= 10, "only {cited} citations found");
}

/// The inline code spans of `text` outside fenced blocks, whitespace collapsed (a span may
/// wrap a line).
fn code_spans(text: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .map(|s| s.split_whitespace().collect::<Vec<_>>().join(" "))
        .collect()
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `name` is defined in `source` (Rust text): an item (`fn name`, `struct name`, …),
/// an enum variant or a struct field (a line that starts with `name(`, `name {`, `name,` or
/// `name:`), or a libc call the code makes (`libc::name`, `SYS_name`).
fn defines(source: &str, name: &str) -> bool {
    let whole = |at: usize, len: usize| {
        !source[..at].ends_with(is_ident_char) && !source[at + len..].starts_with(is_ident_char)
    };
    let item = [
        "fn ",
        "struct ",
        "enum ",
        "trait ",
        "type ",
        "const ",
        "static ",
        "mod ",
        "macro_rules! ",
        "libc::",
        "SYS_",
    ]
    .iter()
    .any(|kind| {
        let pattern = format!("{kind}{name}");
        source
            .match_indices(&pattern)
            .any(|(at, _)| whole(at, pattern.len()))
    });
    item || source.lines().any(|line| {
        let line = line.trim_start();
        let line = line.strip_prefix("pub ").unwrap_or(line);
        line.strip_prefix(name)
            .is_some_and(|rest| rest.starts_with(['(', ',', ':']) || rest.starts_with(" {"))
    })
}

/// Every code name docs/ARCHITECTURE.md puts in backticks must exist: a file or folder
/// (`runner/session.rs`, `runner/sandbox/`: under `src/` unless it starts with `src/` or
/// `tests/`; a bare `seccomp.rs` anywhere in `src/`), a path (`rule::Rule`,
/// `Boundaries::oc`, `Sampling::rule()`: every segment but `gate`/`crate`), a type or
/// variant (`OrderedSampler`, `LedgerLocked`), or a function, field or test (`emit_to`,
/// `kill_grace`) — defined in `src/` or `tests/`. Plain words (`single`, `PASS`, `c < n`)
/// are not checked.
#[test]
fn every_code_name_in_architecture_md_exists_in_the_source() {
    let text = std::fs::read_to_string(root().join("docs/ARCHITECTURE.md")).expect("ARCHITECTURE");
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    rust_files(&root().join("tests"), &mut files);
    let source: String = files
        .iter()
        .map(|f| std::fs::read_to_string(f).expect("read source"))
        .collect::<Vec<_>>()
        .join("\n");
    let ident = |s: &str| {
        s.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && s.chars().all(is_ident_char)
    };
    let mut checked = 0;
    let mut missing = Vec::new();
    for span in code_spans(&text) {
        let name = span.strip_suffix("()").unwrap_or(&span);
        let segments: Vec<&str> = name.split("::").collect();
        let is_file = !name.contains(' ')
            && (name.ends_with(".rs") || name.ends_with('/'))
            && name.chars().all(|c| is_ident_char(c) || "./-".contains(c));
        let found = if is_file {
            if !name.trim_end_matches('/').contains('/') && name.ends_with(".rs") {
                files
                    .iter()
                    .any(|f| f.starts_with(root().join("src")) && f.ends_with(name))
            } else if name.starts_with("src/") || name.starts_with("tests/") {
                root().join(name).exists()
            } else {
                root().join("src").join(name).exists()
            }
        } else if segments.len() > 1 && segments.iter().all(|s| ident(s)) {
            segments
                .iter()
                .filter(|s| !["gate", "crate"].contains(s))
                .all(|s| defines(&source, s))
        } else if ident(name)
            && (name.starts_with(|c: char| c.is_ascii_uppercase())
                && name.contains(|c: char| c.is_ascii_lowercase())
                || name.contains('_') && !name.contains(|c: char| c.is_ascii_uppercase()))
        {
            defines(&source, name)
        } else {
            continue;
        };
        checked += 1;
        if !found {
            missing.push(span);
        }
    }
    assert!(
        missing.is_empty(),
        "docs/ARCHITECTURE.md names code that is not in src/ or tests/:\n{}",
        missing.join("\n")
    );
    assert!(checked >= 100, "only {checked} code names found");
}

/// The output of `scripts/import-cycles.py SRC` (which must exit 0).
fn import_cycles(src: &Path) -> String {
    let out = Command::new("python3")
        .arg(root().join("scripts/import-cycles.py"))
        .arg(src)
        .output()
        .expect("python3 runs scripts/import-cycles.py");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    text
}

/// docs/ARCHITECTURE.md says `scripts/import-cycles.py src` finds no import cycle, between
/// files or between top-level modules (the issue-28 ring error → plan/report/ingest →
/// error, and design/one_sample.rs, then named design/plan.rs, ↔ design/zone.rs): a new one
/// fails here, naming its edges. None remains at either level.
#[test]
fn the_source_has_no_import_cycle_between_files_or_modules() {
    let text = import_cycles(&root().join("src"));
    assert!(!text.contains(" modules: "), "a module cycle:\n{text}");
    assert!(!text.contains(" files: "), "a file cycle:\n{text}");
    assert_eq!(text.lines().last(), Some("0 cycles"), "{text}");
}

/// Regression (issue 28, r8): the module-level check missed a cycle closed by `crate::Error`
/// (a name lib.rs re-exports from `error`), by the second item of a nested use tree, by a
/// `super::super::…` path in a nested file, or by any code after an out-of-line
/// `#[cfg(test)] mod tests;` (it cut the rest of the file), and it counted test-only code (a
/// `#[cfg(test)] mod fixture;` file, a `#[cfg(test)] mod helpers { … }`) and string
/// literals as imports. A made-up crate with one cycle of each kind, and the test-only
/// edges that must not make one.
#[test]
fn import_cycles_missed_module_cycles_through_reexports_use_trees_super_chains_and_test_modules() {
    let dir = tempfile::tempdir().expect("temp dir");
    let src = dir.path().join("src");
    for (file, text) in [
        (
            "lib.rs",
            "pub mod error;\npub mod plan;\npub mod x;\npub mod y;\npub mod m;\npub mod n;\npub mod r;\npub mod s;\npub mod t;\npub mod u;\npub use error::Error;\n",
        ),
        (
            "error.rs",
            "pub enum Error { Plan(crate::plan::PlanError) }\n",
        ),
        (
            "plan/mod.rs",
            "pub struct PlanError;\npub fn load() -> Result<(), crate::Error> { Ok(()) }\n",
        ),
        ("x.rs", "use crate::{n::{N}, y::Y};\npub struct X;\n"),
        ("y.rs", "pub struct Y(crate::x::X);\n"),
        ("m/mod.rs", "pub mod inner;\npub struct M;\n"),
        ("m/inner/mod.rs", "pub mod deep;\n"),
        (
            "m/inner/deep.rs",
            "pub fn f(_: super::super::super::n::N) {}\n",
        ),
        ("n.rs", "pub struct N;\npub fn g(_: crate::m::M) {}\n"),
        (
            "r/mod.rs",
            "#[cfg(test)]\nmod tests;\nuse crate::s::S;\npub struct R(S);\n",
        ),
        ("r/tests.rs", "use crate::u::U;\n"),
        ("s.rs", "pub struct S;\npub fn h(_: crate::r::R) {}\n"),
        (
            "t/mod.rs",
            "#[cfg(test)]\npub(crate) mod fixture;\npub struct T;\n#[cfg(test)]\nmod helpers {\n    const BRACE: char = '{';\n    use crate::u::U;\n}\n",
        ),
        ("t/fixture.rs", "pub fn fixture(_: crate::u::U) {}\n"),
        (
            "u.rs",
            "pub struct U;\npub fn k(_: crate::t::T) { let _ = \"crate::s::S {\"; }\n",
        ),
    ] {
        let path = src.join(file);
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    assert_eq!(
        import_cycles(&src),
        "\
2 files: r/mod.rs s.rs
2 files: x.rs y.rs
2 modules: error plan
    error -> plan (e.g. error.rs)
    plan -> error (e.g. plan/mod.rs)
2 modules: m n
    m -> n (e.g. m/inner/deep.rs)
    n -> m (e.g. n.rs)
2 modules: r s
    r -> s (e.g. r/mod.rs)
    s -> r (e.g. s.rs)
2 modules: x y
    x -> y (e.g. x.rs)
    y -> x (e.g. y.rs)
6 cycles
"
    );
}

/// The parser of runnable blocks: the pieces the tests above rely on.
#[test]
fn runnable_blocks_parse_commands_exit_codes_and_markers() {
    let text = "\
```console
$ gate plan --healthy 0.9 \\
  --regressed 0.7
out
(exit 2)
$ gate verify x
…
```

<!-- docs: not run: needs pytest -->
```console
$ gate run gate.yaml
```

<!-- docs: file plans/t.yaml -->
```yaml
version: 1
```

```sh
gate run plans/demo.yaml
```
";
    let blocks = runnable_blocks(text);
    assert_eq!(blocks.len(), 1);
    let b = &blocks[0];
    assert!(b.excerpt);
    assert_eq!(b.commands.len(), 2);
    assert_eq!(
        b.commands[0].command,
        "gate plan --healthy 0.9   --regressed 0.7"
    );
    assert_eq!(b.commands[0].expected_exit, 2);
    assert_eq!(b.commands[0].output, 3..5);
    assert_eq!(b.commands[1].expected_exit, 0);
    assert_eq!(b.commands[1].line, 6);
    let files: Vec<(String, String)> = steps(text)
        .into_iter()
        .filter_map(|s| match s {
            Step::File { name, text } => Some((name, text)),
            Step::Run(_) | Step::Cwd(_) => None,
        })
        .collect();
    assert_eq!(
        files,
        vec![("plans/t.yaml".to_string(), "version: 1\n".to_string())]
    );
}

/// A console block inside a list item is indented; its commands run all the same.
#[test]
fn an_indented_console_block_is_runnable() {
    let text =
        "1. Judge:\n\n   ```console\n   $ gate check x.yaml\n   error: x\n   (exit 2)\n   ```\n";
    let blocks = runnable_blocks(text);
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].indent, "   ");
    assert_eq!(blocks[0].commands.len(), 1);
    assert_eq!(blocks[0].commands[0].command, "gate check x.yaml");
    assert_eq!(blocks[0].commands[0].expected_exit, 2);
    assert_eq!(blocks[0].commands[0].output, 4..6);
}

/// Issue 32 item 7: the README's `gate ingest … --ledger ingest/ledger.jsonl` left an
/// untracked `ingest/` folder in the clone. Every file a README command writes (`--ledger`,
/// the report flags, `--out-dir`) lies under `gate-out/`, which .gitignore ignores, or is
/// `-` (stdout). `gate init --output` is left out: it writes the plan a user commits.
#[test]
fn readme_commands_write_only_under_the_ignored_gate_out_folder() {
    let text = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let ignore = std::fs::read_to_string(root().join(".gitignore")).expect(".gitignore");
    assert!(ignore.lines().any(|l| l.trim() == "/gate-out"), "{ignore}");
    const WRITES: [&str; 6] = [
        "--ledger",
        "--junit",
        "--summary",
        "--json",
        "--svg",
        "--out-dir",
    ];
    let mut in_fence = false;
    let mut checked = 0;
    let mut outside = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if !in_fence {
            continue;
        }
        // `gate explain --junit FILES` reads its files; every other flag below writes.
        if line.contains("gate explain") {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        for pair in words.windows(2) {
            let (flag, value) = (pair[0], pair[1]);
            let (flag, value) = match flag.split_once('=') {
                Some((f, v)) => (f, v),
                None => (flag, value),
            };
            if !WRITES.contains(&flag) {
                continue;
            }
            checked += 1;
            if value != "-" && !value.starts_with("gate-out/") {
                outside.push(format!("README.md:{}: {flag} {value}", i + 1));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "README commands that write outside gate-out/ (an untracked file in the clone):\n{}",
        outside.join("\n")
    );
    assert!(
        checked >= 2,
        "only {checked} output paths found in the README"
    );
}

/// The anchor GitHub gives a Markdown heading: lower case, punctuation dropped, spaces as `-`.
fn heading_anchor(title: &str) -> String {
    title
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of a Markdown text: its headings' (outside code fences) and `<a id="…">`s.
fn anchors(text: &str) -> std::collections::BTreeSet<String> {
    let mut out = std::collections::BTreeSet::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if hashes > 0 && line[hashes..].starts_with(' ') {
            out.insert(heading_anchor(&line[hashes..]));
        }
        let mut rest = line;
        while let Some(at) = rest.find("<a id=\"") {
            let after = &rest[at + 7..];
            let Some(end) = after.find('"') else { break };
            out.insert(after[..end].to_string());
            rest = &after[end..];
        }
    }
    out
}

/// Issue 32 item 9: docs/github-action.md had bold paragraphs where headings belong, so
/// nothing could link to its sections; docs/statistics.md opened on 1,022 lines of reference.
/// Every `FILE.md#anchor` link in the docs names a heading (or `<a id>`) of that file; the
/// Action's page leads no paragraph with a bold title; statistics.md opens with a summary
/// that fits one screen.
#[test]
fn doc_anchors_resolve_and_the_action_and_statistics_pages_open_as_a_reader_needs() {
    let mut broken = Vec::new();
    let mut checked = 0;
    for file in doc_files() {
        let text = std::fs::read_to_string(root().join(&file)).expect("read doc");
        let dir = file.parent().unwrap_or(Path::new(""));
        for (line, target) in link_targets(&text) {
            let Some((path, anchor)) = target.split_once('#') else {
                continue;
            };
            if target.contains("://") || !(path.is_empty() || path.ends_with(".md")) {
                continue;
            }
            let linked = if path.is_empty() {
                file.clone()
            } else {
                dir.join(path)
            };
            let Ok(linked_text) = std::fs::read_to_string(root().join(&linked)) else {
                continue; // a missing file is the other test's finding
            };
            checked += 1;
            if !anchors(&linked_text).contains(anchor) {
                broken.push(format!("{}:{line}: {target}", file.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links to no heading:\n{}",
        broken.join("\n")
    );
    assert!(checked >= 10, "only {checked} anchored links found");

    let action = std::fs::read_to_string(root().join("docs/github-action.md")).expect("doc");
    let mut previous_blank = true;
    let mut bold_leads = Vec::new();
    for (i, line) in action.lines().enumerate() {
        if previous_blank && line.starts_with("**") {
            bold_leads.push(format!("docs/github-action.md:{}: {line}", i + 1));
        }
        previous_blank = line.trim().is_empty();
    }
    assert!(
        bold_leads.is_empty(),
        "paragraphs led by a bold title (make them headings):\n{}",
        bold_leads.join("\n")
    );
    let a = anchors(&action);
    for section in ["compare-head-against-base", "inputs", "outputs", "sharded"] {
        assert!(
            a.contains(section),
            "docs/github-action.md has no #{section}"
        );
    }

    let stats = std::fs::read_to_string(root().join("docs/statistics.md")).expect("doc");
    let sections: Vec<(usize, &str)> = stats
        .lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with("## "))
        .take(2)
        .collect();
    assert_eq!(
        sections.first().map(|s| s.1),
        Some("## In one screen"),
        "docs/statistics.md must open with its summary"
    );
    let length = sections[1].0 - sections[0].0;
    assert!(
        length <= 40,
        "the summary of docs/statistics.md is {length} lines: more than one screen"
    );
    let summary = &stats[..stats.find(sections[1].1).expect("second section")];
    for figure in [
        "**alpha**",
        "**beta**",
        "**zone**",
        "**pass rate**",
        "**multiplicity**",
    ] {
        assert!(
            summary.contains(figure),
            "the summary does not say what {figure} means"
        );
    }
}
