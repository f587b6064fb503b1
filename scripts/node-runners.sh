#!/usr/bin/env bash
# Install the JavaScript test runners `gate init` writes plans for (Jest + jest-junit, Vitest,
# mocha + mocha-junit-reporter, @playwright/test) into DIR/node_modules, at pinned versions,
# for tests/cli/init.rs: its end-to-end tests run each written plan on a scratch project whose
# node_modules links here (and skip, saying why, when DIR holds no runners). Nothing else is
# fetched: Playwright's browsers are not downloaded (the tests use no page).
#
#   scripts/node-runners.sh [DIR]     # default: target/node-runners
#
# About 25 s and 120 MB from the npm registry the first time; nothing when DIR is complete.
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-target/node-runners}"

readonly JEST_VERSION=30.5.2
readonly JEST_JUNIT_VERSION=17.0.0
readonly VITEST_VERSION=4.1.12
# mocha-junit-reporter 2.2.1 fails under mocha 12 ("Class constructor Base cannot be invoked
# without 'new'"), so mocha stays on 11.
readonly MOCHA_VERSION=11.8.0
readonly MOCHA_JUNIT_REPORTER_VERSION=2.2.1
readonly PLAYWRIGHT_VERSION=1.65.1

bins=(jest vitest mocha playwright)
complete=1
for b in "${bins[@]}"; do [ -x "$dir/node_modules/.bin/$b" ] || complete=0; done
[ -d "$dir/node_modules/jest-junit" ] && [ -d "$dir/node_modules/mocha-junit-reporter" ] || complete=0
if [ "$complete" = 1 ]; then
  exit 0
fi
mkdir -p "$dir"
cat >"$dir/package.json" <<JSON
{ "name": "gate-node-runners", "version": "1.0.0", "private": true }
JSON
echo "node-runners: installing jest $JEST_VERSION, vitest $VITEST_VERSION, mocha $MOCHA_VERSION, @playwright/test $PLAYWRIGHT_VERSION into $dir" >&2
(cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --silent --no-audit --no-fund \
  "jest@$JEST_VERSION" "jest-junit@$JEST_JUNIT_VERSION" "vitest@$VITEST_VERSION" \
  "mocha@$MOCHA_VERSION" "mocha-junit-reporter@$MOCHA_JUNIT_REPORTER_VERSION" \
  "@playwright/test@$PLAYWRIGHT_VERSION" >/dev/null)
