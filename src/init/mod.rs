//! The plans `gate init` writes, as a library: which project a directory holds (detection
//! from its files: pytest, Cargo, Jest, Vitest, mocha, Playwright, node, Go, in that order of
//! preference; an eval tool's project, [`evals`]), and the commented plan for it. A suite
//! runner's project (pytest, Cargo with cargo-nextest, Jest, Vitest, mocha, Playwright, Go;
//! the runner table is data, [`suites::RUNNERS`]) gets a plan with a `suite:` task that runs
//! its suite once per trial with the runner's own retries off, passes the undecided cases
//! (`$GATE_SUITE_CASES`) to the runner's filter, and judges every test case. A plain node
//! project gets a plan that gates ONE test of it, found by scanning its test files, run once
//! per trial with the runner's retries switched off, judged by a `design:` rule with the
//! default risks. Every line says why it is there, so the file doubles as a tutorial.
//!
//! Writing the files and printing what was done is `commands/init.rs`'s (glue); [`files`]
//! holds the reads and the never-overwriting write they share.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use files::project_text;

pub mod evals;
pub mod files;
pub mod suites;

/// Project kinds `gate init` knows how to run (`gate init --kind`; the `ValueEnum` derive is
/// clap's list of its values, which is why the one clap type outside `cli.rs` is here).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ProjectKind {
    /// pytest (pyproject.toml, pytest.ini, conftest.py or test_*.py).
    Pytest,
    /// Cargo (Cargo.toml): `cargo test`.
    Cargo,
    /// Jest (a `jest` dependency, script or config): the suite with jest-junit.
    Jest,
    /// Vitest (a `vitest` dependency, script or config): the suite, `--retry=0`.
    Vitest,
    /// mocha (a `mocha` dependency, script or .mocharc): the suite, `--retries 0`.
    Mocha,
    /// Playwright (`@playwright/test`, playwright.config): the suite, `--retries=0`.
    Playwright,
    /// node (package.json with none of the above): `node --test`.
    Node,
    /// Go (go.mod): the suite through gotestsum, `-count=1`.
    Go,
}

impl ProjectKind {
    /// The name shown to people.
    pub fn label(self) -> &'static str {
        match self {
            ProjectKind::Pytest => "pytest",
            ProjectKind::Cargo => "Cargo",
            ProjectKind::Node => "node",
            kind => suites::runner(kind).map_or("?", |r| r.label),
        }
    }
}

/// The first project kind whose marker files are in `dir`.
pub fn detect(dir: &Path) -> Option<ProjectKind> {
    let has = |name: &str| dir.join(name).exists();
    let pyproject_pytest =
        project_text(dir, Path::new("pyproject.toml")).is_some_and(|s| s.contains("pytest"));
    if pyproject_pytest || has("pytest.ini") || has("conftest.py") || !python_tests(dir).is_empty()
    {
        return Some(ProjectKind::Pytest);
    }
    if has("Cargo.toml") {
        return Some(ProjectKind::Cargo);
    }
    if let Some(r) = suites::detect(dir)
        .into_iter()
        .find(|r| r.kind != ProjectKind::Go)
    {
        return Some(r.kind);
    }
    if has("package.json") {
        // No Jest, Vitest, mocha or Playwright in it: node's own runner.
        return Some(ProjectKind::Node);
    }
    if has("go.mod") {
        return Some(ProjectKind::Go);
    }
    None
}

/// One test found in the project: its file (relative to the project) and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExampleTest {
    /// The file, relative to the project directory, with `/` separators.
    pub file: String,
    /// The test's name as the runner selects it.
    pub name: String,
}

/// Finds the first test name in a file's text.
type NameFinder = fn(&str) -> Option<String>;

/// The first test of the project, in sorted file order, or `None`.
pub fn example_test(dir: &Path, kind: OneTest) -> Option<ExampleTest> {
    let (files, find): (Vec<PathBuf>, NameFinder) = match kind {
        OneTest::Node => (
            ["test", "tests", "."]
                .iter()
                .flat_map(|d| {
                    files_in(&dir.join(d), |n| {
                        n.contains(".test.") && (n.ends_with(".js") || n.ends_with(".mjs"))
                            || (n.starts_with("test") && n.ends_with(".mjs"))
                    })
                })
                .collect(),
            |s| quoted_after(s, "test(").or_else(|| quoted_after(s, "it(")),
        ),
    };
    files.into_iter().find_map(|f| {
        let text = project_text(dir, &f)?;
        let name = find(&text)?;
        let rel = f.strip_prefix(dir).unwrap_or(&f);
        Some(ExampleTest {
            file: rel.to_string_lossy().replace('\\', "/"),
            name,
        })
    })
}

/// `test_*.py` / `*_test.py` files in the project root and in `tests/` and `test/`.
fn python_tests(dir: &Path) -> Vec<PathBuf> {
    ["tests", "test", "."]
        .iter()
        .flat_map(|d| {
            files_in(&dir.join(d), |n| {
                n.ends_with(".py") && (n.starts_with("test_") || n.ends_with("_test.py"))
            })
        })
        .collect()
}

/// Files directly in `dir` whose names pass `keep`, sorted (so the choice is stable).
fn files_in(dir: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .filter(|p| p.file_name().and_then(|n| n.to_str()).is_some_and(&keep))
        .collect();
    out.sort();
    out
}

/// The quoted string right after the first `marker` in `s` (`test('adds', …)` → `adds`).
fn quoted_after(s: &str, marker: &str) -> Option<String> {
    let rest = s[s.find(marker)? + marker.len()..].trim_start();
    let quote = rest.chars().next().filter(|c| "'\"`".contains(*c))?;
    let body = &rest[1..];
    let name = &body[..body.find(quote)?];
    (!name.is_empty() && !name.contains('\n')).then(|| name.to_string())
}

/// A word for `sh`: single-quoted unless it is plainly safe.
fn sh_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A YAML flow-sequence item: always double-quoted, with `\` and `"` escaped.
fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// A task id from a test name: lowercase, `-` for anything but letters, digits, `_`, `.`.
fn task_id(name: &str) -> String {
    let id: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '.' {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    let id = id.trim_matches('-').to_string();
    if id.is_empty() || id == "." || id == ".." {
        "example".to_string()
    } else {
        id
    }
}

/// How one project kind runs one test with retries off, and which exit codes mean "the
/// harness failed" rather than "the test failed".
struct Runner {
    argv: Vec<String>,
    /// A shell condition on `$out` (the runner's stdout) that holds when no test ran. Runners
    /// that exit 0 when a name matches nothing get a wrapper that exits 5 then, declared a
    /// harness exit code: a typo in a test name must not gate green on zero tests.
    no_test_ran: Option<&'static str>,
    /// A shell line run first that exits 127 (a harness error, as for a missing command) with
    /// one line on stderr when the runner is not installed, where its absence would
    /// otherwise exit like a failing test (`python3 -m pytest` without pytest exits 1).
    guard: Option<&'static str>,
    why: &'static str,
    harness_exit_codes: &'static [i32],
    harness_why: &'static str,
}

fn runner(kind: OneTest, t: Option<&ExampleTest>) -> Runner {
    let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match kind {
        OneTest::Node => {
            let mut argv = s(&["node", "--test", "--test-reporter=tap"]);
            if let Some(t) = t {
                argv.extend(s(&[
                    "--test-name-pattern",
                    &format!("^{}$", regex::escape(&t.name)),
                    &t.file,
                ]));
            }
            Runner {
                argv,
                // node reports a test the pattern skips as skipped, and exits 0.
                no_test_ran: Some(
                    r#"printf '%s\n' "$out" | grep -qx '# pass 0' && printf '%s\n' "$out" | grep -qx '# fail 0'"#,
                ),
                guard: None,
                why: "one `node --test` test by its exact name; node's runner does not retry unless a\n    # test asks to",
                harness_exit_codes: &[5],
                harness_why: "5 is the wrapper's \"no test ran\" above. A file that fails to load exits 1\n  # like a failing test",
            }
        }
    }
}

/// The project kinds whose plan gates one test with `gate run` (the others are suite runners,
/// [`suites`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OneTest {
    /// node's own runner: `node --test --test-name-pattern`.
    Node,
}

impl OneTest {
    /// The name shown to people.
    pub fn label(self) -> &'static str {
        match self {
            OneTest::Node => "node",
        }
    }

    /// The one-test kind of a project kind; `None` for a suite runner.
    pub fn of(kind: ProjectKind) -> Option<OneTest> {
        match kind {
            ProjectKind::Node => Some(OneTest::Node),
            ProjectKind::Pytest
            | ProjectKind::Cargo
            | ProjectKind::Jest
            | ProjectKind::Vitest
            | ProjectKind::Mocha
            | ProjectKind::Playwright
            | ProjectKind::Go => None,
        }
    }
}

/// The commented starter plan; its header names `plan`, the file it is written to.
pub fn render(kind: OneTest, t: Option<&ExampleTest>, cwd: &str, plan: &str) -> String {
    let plan = suites::sh_word(plan);
    let r = runner(kind, t);
    let id = t.map_or_else(|| "suite".to_string(), |t| task_id(&t.name));
    let command = || {
        r.argv
            .iter()
            .map(|a| sh_quote(a))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let guard = r
        .guard
        .map(|g| format!("\n      # The runner is missing: exit 127, a harness error (exit 4), not a FAIL.\n      {g}"))
        .unwrap_or_default();
    let run = match (r.no_test_ran, r.guard) {
        (None, None) => format!(
            "[{}]",
            r.argv.iter().map(|a| q(a)).collect::<Vec<_>>().join(", ")
        ),
        (None, Some(_)) => format!("|{guard}\n      exec {}", command()),
        (Some(no_test), _) => format!(
            "|{guard}\n      out=$({}); status=$?\n      printf '%s\\n' \"$out\"\n      # No test ran (a typo in the name, a renamed test): exit 5, a harness error, not a PASS.\n      if {no_test}; then exit 5; fi\n      exit \"$status\"",
            command()
        ),
    };
    let cwd = if cwd == "." {
        String::new()
    } else {
        format!(
            "    cwd: {}  # the project, relative to this file (commands run where the plan is)\n",
            q(cwd)
        )
    };
    let mut out = String::new();
    // `write!` to a String cannot fail.
    let _ = write!(
        out,
        "\
# gate plan file, written by `gate init` for a {label} project.
#   gate check {plan}   # what this plan will do: the rule, its exact risks, expected trials
#   gate run {plan}     # run it: PASS (exit 0), FAIL (1), INCONCLUSIVE (3)
# Every key is described in docs/plan-file.md. For completion in editors
# (yaml-language-server), write the schema next to this file and uncomment the `$schema` line:
#   gate schema plan > gate.schema.json
# $schema: ./gate.schema.json

version: 1  # the plan-file format; 1 is the only version so far

# How many trials to run and how many failures to tolerate. Rather than guessing n and c,
# state the rates gate must tell apart and let it design the smallest plan that does.
sampling:
  design:
    healthy: 90%    # the success rate of this test when all is well (per single run)
    regressed: 70%  # a success rate you must not ship; below `healthy`
    alpha: 5%       # tolerated P(gate fails | healthy): false alarms (default 5%)
    beta: 10%       # tolerated P(gate passes | regressed): missed regressions (default 10%)
    rule: single    # `single`: a fixed budget of n trials, stopped early once the verdict is
                    # certain, shardable; `sequential`: fewer trials on average

tasks:
  # One critical test, run once per trial. Retries stay OFF: a retry setting of 2 turns the
  # gate into pass@3, where a 60% test goes green 94% of the time. gate runs the trials.
  - id: {id}
{cwd}    # {why}.
    run: {run}
    timeout: 10m    # per trial; a timed-out trial counts as a failure (see `policy.timeout`)
",
        label = kind.label(),
        why = r.why,
        plan = plan,
    );
    if t.is_none() {
        out.push_str(
            "    # No single test was found to narrow this to: replace the last argument with one test.\n",
        );
    }
    let codes: Vec<String> = r.harness_exit_codes.iter().map(i32::to_string).collect();
    let _ = write!(
        out,
        "
policy:
  # Exit codes of `run` that mean the harness, not the test, failed: the run is then a
  # harness error (exit 4) and publishes no verdict.
  # {harness_why}.
  harness_exit_codes: [{codes}]
  on_inconclusive: fail  # an undecided gate exits 3 and goes red; `pass` exits 0 instead
",
        harness_why = r.harness_why,
        codes = codes.join(", "),
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_found_in_each_language() {
        assert_eq!(
            quoted_after(
                "import t from 'node:test';\ntest('adds two', () => {})",
                "test("
            ),
            Some("adds two".into())
        );
        assert_eq!(quoted_after("test(name, fn)", "test("), None);
        assert_eq!(task_id("TestRefund/Flow"), "testrefund-flow");
        assert_eq!(task_id("¿?"), "example");
    }
}
