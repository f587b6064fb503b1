//! `gate init` for suite runners (pytest, Cargo, Jest, Vitest, mocha, Playwright, Go): the
//! runner table as data (one [`SuiteRunner`] per runner in [`RUNNERS`]), detection, and the
//! plan that judges every test case of the suite. Writing it is `commands/init.rs`'s.
//!
//! Each [`SuiteRunner`] says how the runner is recognised, the command that runs its whole
//! suite once with the runner's OWN retries off and writes its results to `$GATE_JUNIT` in a
//! form gate's readers judge right (read from the real tools' output: see
//! scripts/gen-junit-fixtures.sh and tests/cli/init.rs), the exit codes that mean "the suite
//! could not run", the format when it is not JUnit, and whether the writer hides retries. The
//! plan holds the default design and one `suite:` task built from the entry, run by `gate run`.
//!
//! A missing runner is a harness error, never a FAIL: `npx --no` exits 1 when the package is
//! not installed (the code of a failing suite, and npx without `--no` would download it), so
//! every command starts with a guard that prints one line naming what to install and exits
//! 127, a declared harness exit code.

use std::fmt::Write as _;
use std::path::Path;

use super::ProjectKind;

/// One suite runner `gate init` knows.
#[derive(Debug)]
pub struct SuiteRunner {
    /// The project kind (`--kind`).
    pub kind: ProjectKind,
    /// The name shown to people.
    pub label: &'static str,
    /// npm packages whose presence in `dependencies`/`devDependencies` (or whose name as a
    /// word of a `scripts` entry) marks a project of this runner; empty for Go.
    pub packages: &'static [&'static str],
    /// Config files that mark it: a name, or a prefix ending in `.` (`jest.config.`).
    pub configs: &'static [&'static str],
    /// The shell guard run first: it exits 127 with one line on stderr when the runner (or
    /// the reporter the command needs) is not installed.
    pub guard: &'static str,
    /// The whole suite once, the runner's retries off, its JUnit written to `$GATE_JUNIT`.
    pub command: &'static str,
    /// Exit codes of the guarded command that mean the suite could not run.
    pub harness_exit_codes: &'static [i32],
    /// The JUnit writer does not record retries: the command switches them off and
    /// the plan says so (`suite.assume_retries_off`).
    pub assume_retries_off: bool,
    /// What switches the retries off, and what the command cannot switch off, in one line.
    pub retries: &'static str,
    /// The format the command writes to `$GATE_JUNIT` when it is not JUnit (`suite.format`).
    pub format: Option<&'static str>,
    /// The shell line run before the command that turns the case names in
    /// `$GATE_SUITE_CASES` (one a line, as gate's reader names them) into the runner's own
    /// filter, as the positional parameters the command ends with (`"$@"`). An empty or
    /// absent file sets none: the whole suite runs (the first run, or a run by hand).
    pub filter: &'static str,
}

/// The runners, in the order detection prefers them (unit-test runners before Playwright).
pub const RUNNERS: &[SuiteRunner] = &[
    SuiteRunner {
        kind: ProjectKind::Pytest,
        label: "pytest",
        // Detected by `gate init`'s own project scan (pyproject.toml, pytest.ini, test_*.py).
        packages: &[],
        configs: &[],
        // `python3 -m pytest` without pytest exits 1, the code of a failing suite.
        guard: r#"python3 -c 'import pytest' 2>/dev/null || { echo "gate: pytest is not installed for python3 (pip install pytest)" >&2; exit 127; }"#,
        // gate names a case `classname::name` from pytest's JUnit (`tests.test_x::test_a`,
        // `tests.test_x.TestC::test_m`): the module is the longest dotted prefix that is a
        // file, the rest its classes, which gives back pytest's node id.
        filter: r#"set --; if [ -s "${GATE_SUITE_CASES:-}" ]; then while IFS= read -r c; do p=$(printf %s "${c%%::*}" | tr . /); k=; while [ ! -f "$p.py" ] && [ "${p%/*}" != "$p" ]; do k="::${p##*/}$k"; p=${p%/*}; done; set -- "$@" "$p.py$k::${c#*::}"; done < "$GATE_SUITE_CASES"; fi"#,
        command: r#"python3 -m pytest -q -p no:cacheprovider -p no:randomly -p no:rerunfailures --junitxml="$GATE_JUNIT" "$@""#,
        // 2 interrupted, 3 internal error, 4 usage error, 5 no test collected.
        harness_exit_codes: &[2, 3, 4, 5, 127],
        assume_retries_off: false,
        retries: "`-p no:rerunfailures` blocks pytest-rerunfailures (its `--reruns`, `reruns =` in pytest.ini \
                  and `@pytest.mark.flaky`), `-p no:randomly` keeps pytest-randomly from reordering and \
                  reseeding, `-p no:cacheprovider` keeps `--lf` state out of the trials",
        format: None,
    },
    SuiteRunner {
        kind: ProjectKind::Cargo,
        label: "Cargo",
        packages: &[],
        configs: &[],
        guard: r#"cargo nextest --version >/dev/null 2>&1 || { echo "gate: cargo-nextest is not installed (cargo install cargo-nextest --locked)" >&2; exit 127; }"#,
        // gate names a case `BINARY_ID::TEST` (nextest's JUnit classname and name), and a
        // binary id is `crate` or `crate::target`: both splits are asked for, since nextest
        // refuses a `binary_id(=…)` that names no binary. A test of another binary with the
        // same name runs too; its results are recorded and not counted.
        filter: r#"set --; if [ -s "${GATE_SUITE_CASES:-}" ]; then set -- -E "$(sed -nE 's/^[^:]+::(.+)$/test(=\1)/p;s/^test\(=[^:]+::(.+)\)$/test(=\1)/p' "$GATE_SUITE_CASES" | paste -sd '|' -)"; fi"#,
        // nextest writes JUnit only where a profile says (.config/nextest.toml, written by
        // `gate init`); the old file is removed first so a failed build cannot leave the
        // previous run's in its place.
        command: r#"j="${CARGO_TARGET_DIR:-target}/nextest/ci/junit.xml"; rm -f "$j"; cargo nextest run --profile ci --retries 0 --no-fail-fast "$@"; s=$?; cp "$j" "$GATE_JUNIT" 2>/dev/null; exit $s"#,
        // 4 no test ran, 96 setup error, 101 the build failed.
        harness_exit_codes: &[4, 96, 101, 127],
        assume_retries_off: false,
        retries: "`--retries 0` overrides `retries` in .config/nextest.toml; libtest itself never retries",
        format: None,
    },
    SuiteRunner {
        kind: ProjectKind::Jest,
        label: "Jest",
        packages: &["jest"],
        configs: &["jest.config."],
        guard: r#"npx --no -- jest --version >/dev/null 2>&1 && node -e "require.resolve(\"jest-junit\")" >/dev/null 2>&1 || { echo "gate: jest or jest-junit is not installed in this project (npm ci, or npm install --save-dev jest jest-junit)" >&2; exit 127; }"#,
        command: r#"JEST_JUNIT_OUTPUT_FILE="$GATE_JUNIT" npx --no -- jest --ci --reporters=default --reporters=jest-junit "$@""#,
        harness_exit_codes: &[127],
        assume_retries_off: false,
        retries: "Jest has no flag that turns `jest.retryTimes` off, so jest-junit records each test's \
                  `invocations` (junitTestCaseProperties.js, written beside package.json) and gate grades \
                  the first attempt of a retried test",
        format: None,
        // jest-junit names a case by its full title (`describe test`, in both `classname` and
        // `name`), which is what `-t` matches.
        filter: r#"set --; if [ -s "${GATE_SUITE_CASES:-}" ]; then set -- -t "(^| )($(sed -E 's@[][\\^$.|?*+(){}/]@\\&@g' "$GATE_SUITE_CASES" | paste -sd '|' -))\$"; fi"#,
    },
    SuiteRunner {
        kind: ProjectKind::Vitest,
        label: "Vitest",
        packages: &["vitest"],
        configs: &["vitest.config."],
        guard: r#"npx --no -- vitest --version >/dev/null 2>&1 || { echo "gate: vitest is not installed in this project (npm ci, or npm install --save-dev vitest)" >&2; exit 127; }"#,
        // Its JSON report, not its JUnit: a test that passed on a retry keeps the failed
        // attempts' messages there, so a `{ retry: N }` left on a test is still seen.
        command: r#"npx --no -- vitest run --retry=0 --reporter=json --outputFile="$GATE_JUNIT" "$@""#,
        harness_exit_codes: &[127],
        assume_retries_off: false,
        retries: "`--retry=0` overrides `retry` in vitest.config; a test's own `{ retry: N }` still \
                  retries it, and its JSON report shows that, so gate grades the first attempt",
        format: Some("jest-json"),
        filter: r#"set --; if [ -s "${GATE_SUITE_CASES:-}" ]; then set -- -t "(^| )($(sed -E 's/^[^:]*:://;s/ > / /g;s@[][\\^$.|?*+(){}/]@\\&@g' "$GATE_SUITE_CASES" | paste -sd '|' -))\$"; fi"#,
    },
    SuiteRunner {
        kind: ProjectKind::Mocha,
        label: "mocha",
        packages: &["mocha"],
        configs: &[".mocharc."],
        guard: r#"npx --no -- mocha --version >/dev/null 2>&1 || { echo "gate: mocha is not installed in this project (npm ci, or npm install --save-dev mocha)" >&2; exit 127; }"#,
        // Its own JSON reporter (mocha 9.2 and later write it to a file): it records each
        // test's `currentRetry`, where mocha-junit-reporter records no retry (and fails
        // under mocha 12). mocha exits with the number of failed tests: 0 or 1 here, so
        // that 127 failures cannot read as the guard's 127.
        command: r#"npx --no -- mocha --retries 0 --reporter json --reporter-option output="$GATE_JUNIT" "$@"; s=$?; [ "$s" -eq 0 ] || s=1; exit "$s""#,
        harness_exit_codes: &[127],
        assume_retries_off: false,
        retries: "`--retries 0` overrides `retries` in .mocharc; a test's own `this.retries(N)` still \
                  retries it, and its JSON report shows that (`currentRetry`), so gate grades the first attempt",
        format: Some("mocha-json"),
        filter: r#"set --; if [ -s "${GATE_SUITE_CASES:-}" ]; then set -- --grep "(^| )($(sed -E 's/^[^:]*:://;s@[][\\^$.|?*+(){}/]@\\&@g' "$GATE_SUITE_CASES" | paste -sd '|' -))\$"; fi"#,
    },
    SuiteRunner {
        kind: ProjectKind::Playwright,
        label: "Playwright",
        packages: &["@playwright/test"],
        configs: &["playwright.config."],
        guard: r#"npx --no -- playwright --version >/dev/null 2>&1 || { echo "gate: @playwright/test is not installed in this project (npm ci, or npm install --save-dev @playwright/test)" >&2; exit 127; }"#,
        // `--output`: its artifacts (test-results/) go to the trial's own TMPDIR, since the
        // box lets a suite create nothing beside gate's plan and ledger.
        // Its JSON report, which keeps every attempt (its JUnit shows only the last).
        command: r#"PLAYWRIGHT_JSON_OUTPUT_NAME="$GATE_JUNIT" npx --no -- playwright test --retries=0 --reporter=json --output="${TMPDIR:-/tmp}/playwright-test-results" "$@""#,
        harness_exit_codes: &[127],
        assume_retries_off: false,
        retries: "`--retries=0` overrides `retries:` in playwright.config (a generated config retries \
                  twice on CI); a `test.describe.configure({ retries })` still retries, and its JSON report \
                  keeps every attempt, so gate grades the first",
        format: Some("playwright-json"),
        filter: r#"set --; if [ -s "${GATE_SUITE_CASES:-}" ]; then set -- --grep "(^| )($(sed -E 's/^[^:]*:://;s/ › / /g;s@[][\\^$.|?*+(){}/]@\\&@g' "$GATE_SUITE_CASES" | paste -sd '|' -))( |\$)"; fi"#,
    },
    SuiteRunner {
        kind: ProjectKind::Go,
        label: "Go",
        packages: &[],
        configs: &["go.mod"],
        guard: r#"command -v go >/dev/null 2>&1 || { echo "gate: go is not installed (https://go.dev/doc/install)" >&2; exit 127; }"#,
        // `go test -json`: the events in run order (gotestsum's JUnit lists failures first).
        command: r#"go test -count=1 -json "$@" ./... > "$GATE_JUNIT""#,
        harness_exit_codes: &[127],
        assume_retries_off: false,
        retries: "`go test` never retries and `-count=1` switches its test cache off",
        format: Some("go-json"),
        filter: r#"set --; if [ -s "${GATE_SUITE_CASES:-}" ]; then set -- -run "^($(sed -E 's/^.*:://;s@/.*@@' "$GATE_SUITE_CASES" | sort -u | paste -sd '|' -))\$"; fi"#,
    },
];

/// The table entry of a project kind, if it is a suite runner.
pub fn runner(kind: ProjectKind) -> Option<&'static SuiteRunner> {
    RUNNERS.iter().find(|r| r.kind == kind)
}

impl SuiteRunner {
    /// The plan's `suite:` task for this runner: the guard and the command as a block
    /// (`sh` runs them in turn), its harness exit codes, and what the writer needs said.
    pub fn suite_task(&self, cwd: &str) -> String {
        let codes: Vec<String> = self.harness_exit_codes.iter().map(i32::to_string).collect();
        let mut t = format!("  - id: {}\n", self.label.to_ascii_lowercase());
        if cwd != "." {
            let _ = writeln!(
                t,
                "    cwd: \"{}\"  # the project, relative to this file (commands run where the plan is)",
                cwd.replace('\\', "\\\\").replace('"', "\\\"")
            );
        }
        let _ = write!(
            t,
            "    suite:\n      run: |\n        {}\n        # Only the cases gate asks for ($GATE_SUITE_CASES, empty: all) run, by the runner's filter.\n        {}\n        {}\n      harness_exit_codes: [{}]  # 127 is the guard's: the runner is not installed\n",
            self.guard,
            self.filter,
            self.command,
            codes.join(", ")
        );
        if let Some(f) = self.format {
            let _ = writeln!(t, "      format: {f}");
        }
        if self.assume_retries_off {
            t.push_str("      assume_retries_off: true  # its JUnit hides retries; the command turns them off\n");
        }
        t.push_str("    timeout: 30m  # bounds each suite run\n");
        t
    }
}

/// The suite runners found in a JavaScript or Go project, in [`RUNNERS`] order.
pub fn detect(dir: &Path) -> Vec<&'static SuiteRunner> {
    let package = super::files::project_text(dir, Path::new("package.json"))
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok());
    let names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    RUNNERS
        .iter()
        .filter(|r| {
            let config = r.configs.iter().any(|c| {
                names.iter().any(|n| {
                    if c.ends_with('.') {
                        n.starts_with(c)
                    } else {
                        n == c
                    }
                })
            });
            config || package.as_ref().is_some_and(|p| uses(p, r))
        })
        .collect()
}

/// Whether package.json names the runner: a dependency, a word of a script, or (Jest,
/// mocha) its own top-level config key.
fn uses(package: &serde_json::Value, r: &SuiteRunner) -> bool {
    let dep = ["dependencies", "devDependencies"]
        .iter()
        .any(|k| r.packages.iter().any(|p| package[k].get(p).is_some()));
    let bin = match r.kind {
        ProjectKind::Playwright => "playwright",
        _ => r.packages.first().copied().unwrap_or(""),
    };
    let script = package["scripts"].as_object().is_some_and(|s| {
        s.values()
            .filter_map(|v| v.as_str())
            .any(|v| v.split_whitespace().any(|w| w == bin))
    });
    let key = matches!(r.kind, ProjectKind::Jest | ProjectKind::Mocha)
        && package.get(r.label.to_ascii_lowercase()).is_some();
    !bin.is_empty() && (dep || script || key)
}

/// What jest-junit calls for every test case: Jest's `invocations` count, which shows a
/// test that passed on a `jest.retryTimes` retry (gate's JUnit reader grades attempt 1).
pub const JEST_PROPERTIES: &str = "\
// Written by `gate init`: jest-junit records how many times Jest ran each test, so a test
// that passed on a `jest.retryTimes` retry is graded by its failed first attempt.
module.exports = (result) => ({ invocations: result.invocations });
";

/// The file name jest-junit reads [`JEST_PROPERTIES`] from, in the directory Jest runs in.
pub const JEST_PROPERTIES_FILE: &str = "junitTestCaseProperties.js";

/// The nextest profile the Cargo plan runs (`--profile ci`): its JUnit file, where nextest
/// writes one only when a profile says so.
pub const NEXTEST_PROFILE: &str = "\
# Written by `gate init`: the profile gate's plan runs (`--profile ci`) writes JUnit, which
# gate reads for every test case. Retries stay off (the plan passes `--retries 0` too).
[profile.ci]
retries = 0
fail-fast = false

[profile.ci.junit]
path = \"junit.xml\"
";

/// `a` or `an` before a label.
pub fn article(label: &str) -> &'static str {
    if matches!(label.chars().next(), Some('A' | 'E' | 'I' | 'O' | 'U')) {
        "an"
    } else {
        "a"
    }
}

/// The plan file: the default design, and one `suite:` task whose every test case it judges;
/// its header names `plan`, the file it is written to.
pub fn render(r: &SuiteRunner, cwd: &str, plan: &str) -> String {
    let mut text = String::new();
    // `write!` to a String cannot fail.
    let _ = write!(
        text,
        "\
# gate plan file, written by `gate init` for {a} {label} project: the suite runs once per
# trial with its own retries off, and every test case is judged on its own by the rule below.
#   gate check {plan}   # what this plan will do
#   gate run {plan}     # run it: PASS (exit 0), FAIL (1), INCONCLUSIVE (3)
# Retries: {retries}.
# Every key is described in docs/plan-file.md (\"Suite tasks\"); the runners in docs/runners.md.

version: 1  # the plan-file format; 1 is the only version so far

# The rule for every test case: rather than guessing n and c, state the rates gate must tell
# apart and let it design the smallest plan that does (`gate check` shows it).
{sampling}
tasks:
  # The whole suite as each trial; each test case becomes a task `{id}/CASE`. A missing
  # runner exits 127: a harness error (exit 4, no verdict), never a FAIL.
{task}",
        a = article(r.label),
        label = r.label,
        retries = r.retries,
        id = r.label.to_ascii_lowercase(),
        task = r.suite_task(cwd),
        sampling = super::files::DEFAULT_DESIGN,
        plan = sh_word(plan),
    );
    text
}

/// A word for `sh`: as is when plainly safe, else single-quoted.
pub fn sh_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@".contains(c))
    {
        s.to_string()
    } else {
        sh_single(s)
    }
}

/// `s` single-quoted for `sh`.
fn sh_single(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_runner_guards_its_command_and_declares_the_guards_code() {
        for r in RUNNERS {
            assert!(r.guard.contains("exit 127"), "{}", r.label);
            assert!(r.harness_exit_codes.contains(&127), "{}", r.label);
            assert!(r.command.contains("$GATE_JUNIT"), "{}", r.label);
            // The runner's filter gets the cases gate asks for.
            assert!(r.command.contains(r#""$@""#), "{}", r.label);
            assert!(r.filter.contains("GATE_SUITE_CASES"), "{}", r.label);
            // npx parses the runner's flags as its own without `--` (seen with mocha's
            // `--retries 0`: "Unknown cli config").
            assert!(!r.command.contains("npx --no ") || r.command.contains("npx --no -- "));
        }
    }

    #[test]
    fn package_json_marks_a_runner_by_dependency_script_or_config_key() {
        let jest = runner(ProjectKind::Jest).unwrap();
        let pw = runner(ProjectKind::Playwright).unwrap();
        let p: serde_json::Value =
            serde_json::from_str(r#"{"devDependencies": {"jest": "^30"}}"#).unwrap();
        assert!(uses(&p, jest) && !uses(&p, pw));
        let p: serde_json::Value =
            serde_json::from_str(r#"{"scripts": {"e2e": "playwright test"}}"#).unwrap();
        assert!(uses(&p, pw) && !uses(&p, jest));
        let p: serde_json::Value = serde_json::from_str(r#"{"jest": {}}"#).unwrap();
        assert!(uses(&p, jest));
        let p: serde_json::Value =
            serde_json::from_str(r#"{"scripts": {"test": "node --test"}}"#).unwrap();
        assert!(RUNNERS.iter().all(|r| !uses(&p, r)));
    }
}
