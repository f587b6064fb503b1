#!/usr/bin/env bash
# Benchmark of `gate plan` on the extreme case of issue 2 (healthy 99.9% vs regressed 99.5%,
# alpha = beta = 0.01: the single plan needs 3476 trials, the sequential test up to 6952).
# Not a test: it prints wall time per run, averaged over RUNS runs (default 20), for the
# extreme case as text, as JSON and with the SVG chart, next to two baselines measured in
# the same run — `gate --version` (process start-up) and a small plan (90% vs 50%) — and the
# ratio of each to the `--version` baseline.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --locked --quiet
bin=target/release/gate
runs=${RUNS:-20}
svg=$(mktemp --suffix=.svg)
trap 'rm -f "$svg"' EXIT

# Mean wall time of one run of "$@", in microseconds.
per_run_us() {
  local start end
  start=$(date +%s%N)
  for ((i = 0; i < runs; i++)); do "$@" >/dev/null; done
  end=$(date +%s%N)
  echo $(((end - start) / runs / 1000))
}

extreme=(plan --healthy 0.999 --regressed 0.995 --alpha 0.01 --beta 0.01)
base=$(per_run_us "$bin" --version)
small=$(per_run_us "$bin" plan --healthy 0.9 --regressed 0.5)
text=$(per_run_us "$bin" "${extreme[@]}")
json=$(per_run_us "$bin" "${extreme[@]}" --format json)
chart=$(per_run_us "$bin" "${extreme[@]}" --svg "$svg")

echo "gate plan benchmark: $runs runs each, $(nproc) CPUs, release build"
echo "extreme case: gate ${extreme[*]}"
row() { awk -v name="$1" -v us="$2" -v base="$base" \
  'BEGIN { printf "  %-40s %8.1f ms  %6.1fx --version\n", name, us / 1000, us / base }'; }
row "gate --version (baseline)" "$base"
row "gate plan 90% vs 50% (small baseline)" "$small"
row "extreme case, text" "$text"
row "extreme case, --format json" "$json"
row "extreme case, text and --svg" "$chart"
