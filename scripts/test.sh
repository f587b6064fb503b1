#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs the validator the tests call
# (xmllint for the JUnit XSD), then runs every Rust test. This is the README's test command;
# .ci/run calls it. The GitHub Action files are validated by scripts/validate-actions.sh,
# which .ci/run runs before this and which the tests do not need.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v xmllint >/dev/null 2>&1; then
  echo "test.sh: installing xmllint (libxml2-utils)" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libxml2-utils >/dev/null
fi

# --release: the tests build on the dependency tree `cargo run --release` (the README's main
# command) already compiled, instead of compiling it a second time in the debug profile; see
# docs/performance.md, "Build times". The suite also runs faster optimised.
cargo test --release --locked --all-targets "$@"
