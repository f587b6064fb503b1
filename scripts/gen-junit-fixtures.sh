#!/usr/bin/env bash
# Generate the JUnit fixtures of `gate ingest` with the real test runners, into
# tests/fixtures/junit/. Nothing there is written by hand: rerun this script to regenerate.
#
# Every suite is a tiny set of flaky tests whose outcome is a known function of an invocation
# counter (one file per test in $GATE_FIXTURE_COUNTERS, incremented on every execution,
# retries included), so the first-attempt counts are known exactly and tests/cli/ingest.rs
# recomputes them by simulating the same rule:
#
#   lookup   always passes
#   refund   fails when k % 3 == 1   (k = the test's invocation count, from 1)
#   cancel   fails when k % 4 != 0
#
# Scenarios (each starts with fresh counters):
#   pytest-runs/run-NN.xml      pytest, 20 runs with retries off, one file per run
#   pytest-repeat-rerun.xml     pytest-repeat `--count 20` with pytest-rerunfailures
#                               `--reruns 2`, in one file
#   nextest-runs/run-NN.xml     cargo-nextest, 10 runs with `retries = 2` in
#                               .config/nextest.toml, one file per run
#   jest-runs/run-NN.xml        Jest + jest-junit, 5 runs with `jest.retryTimes(2)` and a
#                               junitTestCaseProperties.js that records `invocations`
#   jest-plain.xml              the same without the properties file (retries invisible)
#   playwright-retries.xml      @playwright/test `--retries 2 --repeat-each 5` (no browser is
#                               needed: the tests use no page)
#   playwright-no-retries.xml   the same with `--retries 0`
#   mocha-runs/run-NN.xml       mocha + mocha-junit-reporter, 5 runs with `--retries 0`
#   mocha-retries.xml           one run with `--retries 2` (retries invisible)
#
# Needs python3 (venv + pip), cargo-nextest, node and npm; packages come from PyPI and npm.
# Runs in about a minute. GATE_FIXTURE_WORK keeps the work directory (default: a temp dir).
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
out="$repo/tests/fixtures/junit"

readonly PYTEST_VERSION=9.2.0
readonly PYTEST_REPEAT_VERSION=0.9.4
readonly PYTEST_RERUNFAILURES_VERSION=16.7
readonly JEST_VERSION=30.5.2
readonly JEST_JUNIT_VERSION=17.0.0
readonly PLAYWRIGHT_VERSION=1.65.1
# mocha-junit-reporter 2.2.1 fails under mocha 12 ("Class constructor Base cannot be invoked
# without 'new'"), so mocha stays on 11.
readonly MOCHA_VERSION=11.8.0
readonly MOCHA_JUNIT_REPORTER_VERSION=2.2.1

work="${GATE_FIXTURE_WORK:-$(mktemp -d)}"
mkdir -p "$work"
note() { printf 'gen-junit-fixtures: %s\n' "$*" >&2; }
# A fresh counter directory for one scenario.
counters() {
  rm -rf "$work/counters/$1"
  mkdir -p "$work/counters/$1"
  printf '%s' "$work/counters/$1"
}

rm -rf "$out"
mkdir -p "$out"

# ---------------------------------------------------------------- pytest
note "pytest: installing pytest $PYTEST_VERSION, pytest-repeat, pytest-rerunfailures"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "pytest==$PYTEST_VERSION" "pytest-repeat==$PYTEST_REPEAT_VERSION" \
  "pytest-rerunfailures==$PYTEST_RERUNFAILURES_VERSION"
mkdir -p "$work/py"
cat >"$work/py/test_agent.py" <<'PY'
import os
import pathlib


def bump(name):
    """Count this execution of test `name` (retries included) and return the count, from 1."""
    path = pathlib.Path(os.environ["GATE_FIXTURE_COUNTERS"]) / name
    k = int(path.read_text()) + 1 if path.exists() else 1
    path.write_text(str(k))
    return k


def test_lookup():
    bump("lookup")


def test_refund():
    k = bump("refund")
    assert k % 3 != 1, f"refund invocation {k}"


def test_cancel():
    k = bump("cancel")
    assert k % 4 == 0, f"cancel invocation {k}"
PY
pytest=("$work/venv/bin/pytest" -q -p no:cacheprovider --rootdir "$work/py")

note "pytest: 20 runs with retries off"
mkdir -p "$out/pytest-runs"
c="$(counters pytest-runs)"
for i in $(seq -w 1 20); do
  (cd "$work/py" && GATE_FIXTURE_COUNTERS="$c" "${pytest[@]}" \
    --junitxml="$out/pytest-runs/run-$i.xml" test_agent.py >/dev/null) || true
  test -s "$out/pytest-runs/run-$i.xml"
done

note "pytest: --count 20 --reruns 2 in one run"
c="$(counters pytest-repeat-rerun)"
(cd "$work/py" && GATE_FIXTURE_COUNTERS="$c" "${pytest[@]}" --count 20 --reruns 2 \
  --junitxml="$out/pytest-repeat-rerun.xml" test_agent.py >/dev/null) || true
test -s "$out/pytest-repeat-rerun.xml"

# ---------------------------------------------------------------- cargo-nextest
note "nextest: $(cargo nextest --version 2>/dev/null | head -1), 10 runs with retries = 2"
crate="$work/agentsuite"
mkdir -p "$crate/src" "$crate/.config"
cat >"$crate/Cargo.toml" <<'TOML'
[package]
name = "agentsuite"
version = "0.1.0"
edition = "2021"

[workspace]
TOML
cat >"$crate/src/lib.rs" <<'RS'
//! Flaky tests whose outcome is a function of an invocation counter.
#[cfg(test)]
mod tests {
    /// Count this execution of test `name` (retries included) and return the count, from 1.
    fn bump(name: &str) -> u64 {
        let dir = std::env::var("GATE_FIXTURE_COUNTERS").expect("GATE_FIXTURE_COUNTERS");
        let path = std::path::Path::new(&dir).join(name);
        let k = std::fs::read_to_string(&path)
            .map(|s| s.trim().parse::<u64>().expect("counter"))
            .unwrap_or(0)
            + 1;
        std::fs::write(&path, k.to_string()).expect("write counter");
        k
    }

    #[test]
    fn lookup() {
        bump("lookup");
    }

    #[test]
    fn refund() {
        let k = bump("refund");
        assert!(k % 3 != 1, "refund invocation {k}");
    }

    #[test]
    fn cancel() {
        let k = bump("cancel");
        assert!(k % 4 == 0, "cancel invocation {k}");
    }
}
RS
cat >"$crate/.config/nextest.toml" <<'TOML'
[profile.default]
retries = 2
# Run every test in every run (the default stops at the first failure).
fail-fast = false
# One test at a time, so the counter files see the executions in order.
test-threads = 1

[profile.default.junit]
path = "junit.xml"
TOML
mkdir -p "$out/nextest-runs"
c="$(counters nextest-runs)"
export CARGO_TARGET_DIR="$crate/target"
(cd "$crate" && cargo nextest run --no-run >/dev/null 2>&1)
for i in $(seq -w 1 10); do
  (cd "$crate" && RUST_BACKTRACE=0 GATE_FIXTURE_COUNTERS="$c" cargo nextest run >/dev/null 2>&1) || true
  cp "$CARGO_TARGET_DIR/nextest/default/junit.xml" "$out/nextest-runs/run-$i.xml"
done
unset CARGO_TARGET_DIR

# ---------------------------------------------------------------- Jest + jest-junit, Playwright
note "npm: jest $JEST_VERSION, jest-junit $JEST_JUNIT_VERSION, @playwright/test $PLAYWRIGHT_VERSION"
js="$work/js"
mkdir -p "$js/jest" "$js/pw"
cat >"$js/package.json" <<'JSON'
{ "name": "gate-fixtures", "version": "1.0.0", "private": true }
JSON
(cd "$js" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit --no-fund \
  "jest@$JEST_VERSION" "jest-junit@$JEST_JUNIT_VERSION" "@playwright/test@$PLAYWRIGHT_VERSION" \
  "mocha@$MOCHA_VERSION" "mocha-junit-reporter@$MOCHA_JUNIT_REPORTER_VERSION" >/dev/null)
cat >"$js/counter.js" <<'JS'
// Count this execution of test `name` (retries included) and return the count, from 1.
const fs = require("node:fs");
const path = require("node:path");
module.exports = function bump(name) {
  const file = path.join(process.env.GATE_FIXTURE_COUNTERS, name);
  const k = (fs.existsSync(file) ? parseInt(fs.readFileSync(file, "utf8"), 10) : 0) + 1;
  fs.writeFileSync(file, String(k));
  return k;
};
JS
cat >"$js/jest/agent.test.js" <<'JS'
const bump = require("../counter.js");
jest.retryTimes(2);
describe("agent", () => {
  test("lookup", () => { bump("lookup"); });
  test("refund", () => { const k = bump("refund"); expect(k % 3).not.toBe(1); });
  test("cancel", () => { const k = bump("cancel"); expect(k % 4).toBe(0); });
});
JS
# jest-junit calls this for every test case; `invocations` is how many times Jest ran it.
cat >"$js/jest/junitTestCaseProperties.js" <<'JS'
module.exports = (result) => ({ invocations: result.invocations });
JS
jest() {
  (cd "$js/jest" && GATE_FIXTURE_COUNTERS="$1" JEST_JUNIT_OUTPUT_FILE="$2" \
    "$js/node_modules/.bin/jest" --ci --rootDir . --reporters=jest-junit >/dev/null 2>&1) || true
  test -s "$2"
}
note "jest: 5 runs with jest.retryTimes(2), invocations recorded"
mkdir -p "$out/jest-runs"
c="$(counters jest-runs)"
for i in $(seq -w 1 5); do
  jest "$c" "$out/jest-runs/run-$i.xml"
done
note "jest: one run without the properties file"
rm "$js/jest/junitTestCaseProperties.js"
jest "$(counters jest-plain)" "$out/jest-plain.xml"

cat >"$js/pw/agent.spec.js" <<'JS'
const { test, expect } = require("@playwright/test");
const bump = require("../counter.js");
test.describe("agent", () => {
  test("lookup", () => { bump("lookup"); });
  test("refund", () => { const k = bump("refund"); expect(k % 3).not.toBe(1); });
  test("cancel", () => { const k = bump("cancel"); expect(k % 4).toBe(0); });
});
JS
cat >"$js/playwright.config.js" <<'JS'
module.exports = {
  testDir: "pw",
  workers: 1,
  reporter: [["junit", { outputFile: process.env.PLAYWRIGHT_JUNIT_OUTPUT_FILE }]],
};
JS
playwright() {
  local file="$1"
  shift
  (cd "$js" && GATE_FIXTURE_COUNTERS="$(counters "$(basename "$file" .xml)")" \
    PLAYWRIGHT_JUNIT_OUTPUT_FILE="$file" PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    "$js/node_modules/.bin/playwright" test "$@" >/dev/null 2>&1) || true
  test -s "$file"
}
note "playwright: --repeat-each 5 with --retries 2, and with --retries 0"
playwright "$out/playwright-retries.xml" --retries 2 --repeat-each 5
playwright "$out/playwright-no-retries.xml" --retries 0 --repeat-each 5

# ---------------------------------------------------------------- mocha + mocha-junit-reporter
mkdir -p "$js/mocha"
cat >"$js/mocha/agent.test.js" <<'JS'
const assert = require("node:assert");
const bump = require("../counter.js");
describe("agent", function () {
  it("lookup", function () { bump("lookup"); });
  it("refund", function () { const k = bump("refund"); assert.notStrictEqual(k % 3, 1, `refund invocation ${k}`); });
  it("cancel", function () { const k = bump("cancel"); assert.strictEqual(k % 4, 0, `cancel invocation ${k}`); });
});
JS
mocha() {
  local counters="$1" file="$2"
  shift 2
  # `--` ends npx's own options: without it npx reads `--retries` as an npm setting.
  (cd "$js" && GATE_FIXTURE_COUNTERS="$counters" "$js/node_modules/.bin/mocha" "$@" \
    --reporter mocha-junit-reporter --reporter-options "mochaFile=$file" mocha/agent.test.js \
    >/dev/null 2>&1) || true
  test -s "$file"
}
note "mocha: 5 runs with --retries 0, and one with --retries 2"
mkdir -p "$out/mocha-runs"
c="$(counters mocha-runs)"
for i in $(seq -w 1 5); do
  mocha "$c" "$out/mocha-runs/run-$i.xml" --retries 0
done
mocha "$(counters mocha-retries)" "$out/mocha-retries.xml" --retries 2

[ -n "${GATE_FIXTURE_WORK:-}" ] || rm -rf "$work"
note "wrote $(find "$out" -name '*.xml' | wc -l) files under ${out#"$repo"/}"
