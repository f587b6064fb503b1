#!/usr/bin/env bash
# The whole test suite, on a fresh machine: installs the validators the tests call
# (xmllint for the JUnit XSD; check-jsonschema and zizmor for the GitHub Action files),
# then runs every Rust test. This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v xmllint >/dev/null 2>&1; then
  echo "test.sh: installing xmllint (libxml2-utils)" >&2
  if [ "$(id -u)" = 0 ]; then SUDO=""; else SUDO="sudo"; fi
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq libxml2-utils >/dev/null
fi

cargo test --locked --all-targets "$@"
