#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs what the tests call (xmllint for the
# JUnit XSD, pytest into target/py-venv and cargo-nextest for `gate suite`'s end-to-end tests,
# the node runners into target/node-runners for `gate init`'s), then runs every Rust test.
# This is the README's test command; .ci/run calls it. The GitHub Action files are validated
# by scripts/validate-actions.sh, which .ci/run runs before this and the tests do not need.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v xmllint >/dev/null 2>&1; then
  echo "test.sh: installing xmllint (libxml2-utils)" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libxml2-utils >/dev/null
fi

# `gate suite`'s end-to-end tests run a real pytest suite (tests/cli/suite.rs). pytest goes
# into a virtual environment under target/, never into the system's Python; the tests call
# `python3 -m pytest`, and find the venv's python3 first on PATH (exported below, so every
# `gate run` the tests start inherits it). About 10 s the first time, nothing after.
VENV=target/py-venv
if ! "$VENV/bin/python3" -c 'import pytest' >/dev/null 2>&1; then
  echo "test.sh: installing pytest into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/python3" -m pip install --quiet 'pytest==9.2.0'
fi
export PATH="$PWD/$VENV/bin:$PATH"

# ... and a real cargo-nextest suite.
if ! cargo nextest --version >/dev/null 2>&1; then
  echo "test.sh: installing cargo-nextest" >&2
  cargo install --locked cargo-nextest
fi

# ... and the JavaScript runners gate init writes plans for (tests/cli/init.rs runs each
# printed command; it skips, saying why, without them). About 30 s and 120 MB from npm the
# first time, nothing once target/node-runners is complete.
if command -v npm >/dev/null 2>&1; then
  bash scripts/node-runners.sh || echo "test.sh: could not install the node runners; tests/cli/init.rs skips their end-to-end runs" >&2
fi

# --release: the tests build on the dependency tree `cargo run --release` (the README's main
# command) already compiled, instead of compiling it a second time in the debug profile; see
# docs/performance.md, "Build times". The suite also runs faster optimised.
cargo test --release --locked --all-targets "$@"
