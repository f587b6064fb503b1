#!/usr/bin/env bash
# Regenerates every sample output of docs/reports.md from a real run of
# plans/examples/report.yaml (two tasks: `book-flight`, a single plan that PASSes, and
# `refund`, a sequential one that FAILs), and prints each output under a heading:
#
#   1. `gate run` with --junit, --summary, --json and GITHUB_ACTIONS=true (annotations);
#   2. `gate report` on that ledger (the terminal summary), then the JUnit, Markdown and JSON
#      files it wrote;
#   3. `book-flight` run as three shards, and `gate report` over shards 1 and 3 only;
#   4. `gate verify` on the ledger and on a copy with one attempt row edited.
#
# Outcomes come from GATE_TRIAL and trials run one at a time, so verdicts, counts and
# statistics are the same on every run; durations, timestamps, run ids and hashes are not.
# Takes about 20 s after the build.
#
# Usage: scripts/readme-samples.sh   (GATE_BIN=target/debug/gate to skip the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
# GATE_BIN=path/to/gate uses that binary instead of building the release one.
if [ -n "${GATE_BIN:-}" ]; then
  bin=$(cd "$(dirname "$GATE_BIN")" && pwd)/$(basename "$GATE_BIN")
else
  cargo build --release --quiet
  bin=$repo/target/release/gate
fi

# Everything runs in a scratch directory holding a byte-identical copy of the plan at the
# same relative path, so the outputs name `plans/examples/report.yaml`, `gate-out/...` and
# `shard-K/...` as they would in a checkout, not temporary absolute paths.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/plans/examples"
cp plans/examples/report.yaml "$work/plans/examples/report.yaml"
cd "$work"
# Not under Actions unless a step below says so, and never appending to a real step summary.
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY

heading() { printf '\n===== %s =====\n' "$1"; }

# Print `$ gate ARGS`, run it, and print its exit code. `gate report` and `gate verify` write
# their errors and warnings to stderr: shown in place. `gate run` writes one progress line
# per trial there: kept in a log that is shown only when the exit code is no verdict's.
gate() {
  local code=0
  printf '$ gate %s\n' "$*"
  if [ "$1" = run ]; then
    "$bin" "$@" 2>"$work/stderr.log" || code=$?
    case "$code" in
      0 | 1 | 3) ;;
      *) cat "$work/stderr.log" ;;
    esac
  else
    "$bin" "$@" 2>&1 || code=$?
  fi
  printf '(exit %s)\n' "$code"
}

heading "gate run, with GITHUB_ACTIONS=true (terminal summary and annotations)"
export GITHUB_ACTIONS=true
gate run plans/examples/report.yaml --junit gate-out/junit.xml --summary gate-out/summary.md \
  --json gate-out/report.json --no-step-summary
unset GITHUB_ACTIONS

heading "gate report (terminal summary, recomputed from the ledger)"
gate report gate-out/ledger.jsonl

heading "JUnit: gate-out/junit.xml"
cat gate-out/junit.xml

heading "Markdown summary: gate-out/summary.md"
cat gate-out/summary.md

heading "JSON report: gate-out/report.json"
cat gate-out/report.json
echo

# The shards of one run are independent processes (a CI matrix); only single plans can be
# sharded, so the sequential `refund` task is left out with --task.
heading "book-flight as three shards (run in parallel)"
pids=()
for k in 1 2 3; do
  "$bin" run plans/examples/report.yaml --task book-flight --shard "$k/3" \
    --ledger "shard-$k/ledger.jsonl" --no-step-summary >"shard-$k.out" 2>"shard-$k.err" &
  pids+=("$!")
done
for k in 1 2 3; do
  code=0
  wait "${pids[$((k - 1))]}" || code=$?
  printf '$ gate run plans/examples/report.yaml --task book-flight --shard %s/3 --ledger shard-%s/ledger.jsonl --no-step-summary\n' "$k" "$k"
  cat "shard-$k.out"
  case "$code" in
    0 | 1 | 3) ;;
    *) cat "shard-$k.err" ;;
  esac
  printf '(exit %s)\n' "$code"
done

heading "gate report over shards 1 and 3 (shard 2 missing)"
gate report shard-1/ledger.jsonl shard-3/ledger.jsonl

heading "gate verify on the ledger"
gate verify gate-out/ledger.jsonl

heading "gate verify on a copy with one failed trial edited into a pass"
cp gate-out/ledger.jsonl edited.jsonl
line=$(grep -n -m 1 '"kind":"attempt".*"outcome":"fail"' edited.jsonl | cut -d: -f1)
edit="${line}s/\"outcome\":\"fail\"/\"outcome\":\"pass\"/"
printf "\$ sed -i '%s' edited.jsonl\n" "$edit"
sed -i "$edit" edited.jsonl
gate verify edited.jsonl
