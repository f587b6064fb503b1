#!/usr/bin/env bash
# Generate the JSON-report fixtures of `gate ingest` for the JavaScript runners whose JUnit
# hides retries (Playwright, mocha, Vitest; and Jest's own `--json`), with the real runners,
# into tests/fixtures/js-json/. Nothing there is written by hand: rerun this script to
# regenerate.
#
# The suites are those of scripts/gen-junit-fixtures.sh: tiny flaky tests whose outcome is a
# known function of an invocation counter (one file per test in $GATE_FIXTURE_COUNTERS,
# incremented on every execution, retries included), so tests/cli/js_json.rs recomputes every
# attempt by simulating the same rule:
#
#   lookup   always passes
#   refund   fails when k % 3 == 1   (k = the test's invocation count, from 1)
#   cancel   fails when k % 4 != 0
#
# Scenarios (each starts with fresh counters):
#   playwright-retries.json     @playwright/test `--retries 2 --repeat-each 5`, JSON reporter
#                               (no browser is needed: the tests use no page)
#   mocha-runs/run-N.json       mocha `--retries 2 --reporter json`, 5 runs
#   jest-runs/run-N.json        Jest `--json` with `jest.retryTimes(2)`, 5 runs
#   vitest-runs/run-N.json      Vitest `--retry 2 --reporter=json`, 5 runs
#   mocha-hook-failed.json      a `beforeEach` hook that throws (its tests are left out)
#   jest-load-failed.json       a test file that does not load (a syntax error)
#   vitest-load-failed.json     the same under Vitest
#   playwright-setup-failed.json  a `globalSetup` that throws (no test runs)
#
# Needs node and npm; packages come from npm. Runs in about a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
repo="$PWD"
out="$repo/tests/fixtures/js-json"

readonly PLAYWRIGHT_VERSION=1.65.1
readonly MOCHA_VERSION=11.8.0
readonly JEST_VERSION=30.5.2
readonly VITEST_VERSION=4.1.12

work="${GATE_FIXTURE_WORK:-$(mktemp -d)}"
mkdir -p "$work"
note() { printf 'gen-js-json-fixtures: %s\n' "$*" >&2; }
counters() {
  rm -rf "$work/counters/$1"
  mkdir -p "$work/counters/$1"
  printf '%s' "$work/counters/$1"
}
rm -rf "$out"
mkdir -p "$out/mocha-runs" "$out/jest-runs" "$out/vitest-runs"

note "npm: @playwright/test $PLAYWRIGHT_VERSION, mocha $MOCHA_VERSION, jest $JEST_VERSION, vitest $VITEST_VERSION"
js="$work/js"
mkdir -p "$js/pw" "$js/mocha" "$js/jest" "$js/vt" "$js/broken"
cat >"$js/package.json" <<'JSON'
{ "name": "gate-js-json-fixtures", "version": "1.0.0", "private": true }
JSON
(cd "$js" && [ -x node_modules/.bin/vitest ] || PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit \
  --no-fund "@playwright/test@$PLAYWRIGHT_VERSION" "mocha@$MOCHA_VERSION" "jest@$JEST_VERSION" \
  "vitest@$VITEST_VERSION" >/dev/null)
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
# Absolute paths in the reports (every runner's) name this work directory: they are
# rewritten to /work/suite so the fixtures do not depend on where they were made.
scrub() { sed -i "s#$js#/work/suite#g" "$1"; }

# ---------------------------------------------------------------- Playwright
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
module.exports = { testDir: "pw", workers: 1, globalSetup: process.env.GATE_FIXTURE_SETUP || undefined };
JS
cat >"$js/failing-setup.js" <<'JS'
module.exports = async () => { throw new Error("global setup: the test server did not start"); };
JS
playwright() {
  local file="$1" c="$2"
  shift 2
  (cd "$js" && GATE_FIXTURE_COUNTERS="$c" PLAYWRIGHT_JSON_OUTPUT_NAME="$file" \
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 node_modules/.bin/playwright test --reporter=json "$@" \
    >/dev/null 2>&1) || true
  test -s "$file"
  scrub "$file"
}
note "playwright: --retries 2 --repeat-each 5; a failing globalSetup"
playwright "$out/playwright-retries.json" "$(counters pw)" --retries 2 --repeat-each 5
GATE_FIXTURE_SETUP=./failing-setup.js playwright "$out/playwright-setup-failed.json" "$(counters pw-setup)"

# ---------------------------------------------------------------- mocha
cat >"$js/mocha/agent.test.js" <<'JS'
const assert = require("node:assert");
const bump = require("../counter.js");
describe("agent", function () {
  it("lookup", function () { bump("lookup"); });
  it("refund", function () { const k = bump("refund"); assert.notStrictEqual(k % 3, 1, `refund invocation ${k}`); });
  it("cancel", function () { const k = bump("cancel"); assert.strictEqual(k % 4, 0, `cancel invocation ${k}`); });
});
JS
cat >"$js/broken/hook.test.js" <<'JS'
const bump = require("../counter.js");
describe("agent", function () {
  it("lookup", function () { bump("lookup"); });
  describe("payments", function () {
    beforeEach(function () { throw new Error("fixture database unavailable"); });
    it("refund", function () { bump("refund"); });
  });
});
JS
mocha() {
  local c="$1" file="$2"
  shift 2
  (cd "$js" && GATE_FIXTURE_COUNTERS="$c" node_modules/.bin/mocha "$@" --reporter json \
    --reporter-option "output=$file" >/dev/null 2>&1) || true
  test -s "$file"
  scrub "$file"
}
note "mocha: 5 runs with --retries 2; a failing beforeEach hook"
c="$(counters mocha)"
for i in 1 2 3 4 5; do
  mocha "$c" "$out/mocha-runs/run-$i.json" --retries 2 mocha/agent.test.js
done
mocha "$(counters mocha-hook)" "$out/mocha-hook-failed.json" broken/hook.test.js

# ---------------------------------------------------------------- Jest
cat >"$js/jest/agent.test.js" <<'JS'
const bump = require("../counter.js");
jest.retryTimes(2);
describe("agent", () => {
  test("lookup", () => { bump("lookup"); });
  test("refund", () => { const k = bump("refund"); expect(k % 3).not.toBe(1); });
  test("cancel", () => { const k = bump("cancel"); expect(k % 4).toBe(0); });
});
JS
jest() {
  local c="$1" file="$2" dir="$3"
  (cd "$js/$dir" && GATE_FIXTURE_COUNTERS="$c" "$js/node_modules/.bin/jest" --ci --rootDir . --json \
    --outputFile="$file" >/dev/null 2>&1) || true
  test -s "$file"
  scrub "$file"
}
note "jest: 5 runs with jest.retryTimes(2); a test file that does not load"
c="$(counters jest)"
for i in 1 2 3 4 5; do
  jest "$c" "$out/jest-runs/run-$i.json" jest
done
mkdir -p "$js/jest-broken"
printf 'describe("agent", () => {\n  test("lookup", () => {});\n' >"$js/jest-broken/agent.test.js"
jest "$(counters jest-broken)" "$out/jest-load-failed.json" jest-broken

# ---------------------------------------------------------------- Vitest
cat >"$js/vt/agent.test.mjs" <<'JS'
import { createRequire } from "node:module";
import { describe, expect, test } from "vitest";
const bump = createRequire(import.meta.url)("../counter.js");
describe("agent", () => {
  test("lookup", () => { bump("lookup"); });
  test("refund", () => { const k = bump("refund"); expect(k % 3).not.toBe(1); });
  test("cancel", () => { const k = bump("cancel"); expect(k % 4).toBe(0); });
});
JS
mkdir -p "$js/vt-broken"
printf 'import { test } from "vitest";\ntest("lookup", () => {\n' >"$js/vt-broken/agent.test.mjs"
vitest() {
  local c="$1" file="$2" dir="$3"
  shift 3
  (cd "$js" && GATE_FIXTURE_COUNTERS="$c" node_modules/.bin/vitest run --root "$dir" "$@" --reporter=json \
    --outputFile="$file" >/dev/null 2>&1) || true
  test -s "$file"
  scrub "$file"
}
note "vitest: 5 runs with --retry 2; a test file that does not load"
c="$(counters vitest)"
for i in 1 2 3 4 5; do
  vitest "$c" "$out/vitest-runs/run-$i.json" vt --retry 2
done
vitest "$(counters vitest-broken)" "$out/vitest-load-failed.json" vt-broken

[ -n "${GATE_FIXTURE_WORK:-}" ] || rm -rf "$work"
note "wrote $(find "$out" -name '*.json' | wc -l) files under ${out#"$repo"/}"
