#!/usr/bin/env bash
# Regenerates the sample outputs of README.md and docs/*.md from real runs.
#
#   1. Every runnable ```console block (see tests/cli/docs.rs for the conventions: `$ gate …`
#      lines, `(exit N)`, `<!-- docs: not run: … -->`, `<!-- docs: file NAME -->`) is run in a
#      scratch copy of the repository's plans and fixtures, and its output is written back
#      into the file, except in blocks marked as excerpts by a `…` line (those keep their
#      text; the test still checks their exit codes).
#   2. The report samples of docs/reports.md (terminal, JUnit, Markdown, annotations, JSON,
#      shards, gate verify) are excerpts of one run each: scripts/readme-samples.sh prints
#      them in full, to paste from.
#
# Review the diff (`git diff README.md docs/`) before committing: durations, run ids and
# hashes change from run to run; verdicts, counts and statistics do not.
#
# Usage: scripts/docs-samples.sh [--reports]   (--reports also runs step 2)
set -euo pipefail
cd "$(dirname "$0")/.."
GATE_DOCS_BLESS=1 cargo test --locked --test cli -- docs::documented_commands_run_with_their_documented_exit_codes
if [ "${1:-}" = "--reports" ]; then
  scripts/readme-samples.sh
fi
